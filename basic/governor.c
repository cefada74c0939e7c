/* governor.c: the cpufreq governor name rule. */
#include "basic/governor.h"

#include <string.h>

bool governor_name_valid(const char *s) {
        size_t len = s ? strlen(s) : 0;
        if (len == 0 || len > GOVERNOR_NAME_MAX)
                return false;
        return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == len;
}
