/* id.h: identifiers for experiments and runs: 12 characters of lowercase RFC 4648 base32 from
 * getrandom (60 bits): short, URL-safe, and unguessable enough for a lab. */
#pragma once

#include <stdbool.h>

#define ID_LEN 12

int id_generate(char ret[ID_LEN + 1]);
/* True when s has the shape of an id; handlers check before touching the store. */
bool id_valid(const char *s);
