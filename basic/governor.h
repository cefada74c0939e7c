/* governor.h: the one rule for a cpufreq governor name, shared by the definition's validation
 * and the host's preflight so that whatever the API accepts, preflight can check. */
#pragma once

#include <stdbool.h>

/* The kernel's CPUFREQ_NAME_LEN (16) less its NUL: no governor can have a longer name. */
#define GOVERNOR_NAME_MAX 15

/* s is 1..GOVERNOR_NAME_MAX of [a-z0-9_-], as the kernel's governors are named ("performance",
 * "schedutil"); nothing else could ever match scaling_governor. */
bool governor_name_valid(const char *s);
