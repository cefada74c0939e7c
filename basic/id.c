/* id.c: random identifiers. */
#include "basic/id.h"

#include <string.h>
#include <sys/random.h>

#include "basic/macro.h"

static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";

int id_generate(char ret[ID_LEN + 1]) {
        unsigned char raw[ID_LEN];
        if (getrandom(raw, sizeof raw, 0) != (ssize_t) sizeof raw)
                return negative_errno();
        for (size_t i = 0; i < ID_LEN; i++)
                ret[i] = alphabet[raw[i] & 31];
        ret[ID_LEN] = '\0';
        return 0;
}

bool id_valid(const char *s) {
        if (!s || strlen(s) != ID_LEN)
                return false;
        return strspn(s, alphabet) == ID_LEN;
}
