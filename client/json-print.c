/* json-print.c: reading and printing the daemon's JSON for the client's commands (see
 * json-print.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "client/exit-status.h"
#include "client/json-print.h"

void json_print(const cJSON *j) {
        _cleanup_free_ char *s = cJSON_Print(j);
        printf("%s\n", s);
}

const char *json_print_str(const cJSON *j, const char *key) {
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, key));
        return str_or(s, "-");
}

bool json_print_num(const cJSON *j, const char *key, double *ret) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(j, key);
        if (!cJSON_IsNumber(n))
                return false;
        *ret = n->valuedouble;
        return true;
}

bool json_print_num_at(const cJSON *j, const char *path, double *ret) {
        const char *dot;
        while ((dot = strchr(path, '.'))) {
                char key[64];
                if ((size_t) (dot - path) >= sizeof key)
                        return false;
                snprintf(key, sizeof key, "%.*s", (int) (dot - path), path);
                j = cJSON_GetObjectItemCaseSensitive(j, key);
                path = dot + 1;
        }
        return json_print_num(j, path, ret);
}

/* Neither waiting nor finished: a phase of a run under way. */
static bool under_way(const char *state) {
        static const char *const not[] = { "queued", "succeeded", "failed", "cancelled", "interrupted" };
        for (size_t i = 0; i < ELEMENTSOF(not); i++)
                if (strcmp(state, not[i]) == 0)
                        return false;
        return true;
}

struct json_print_progress json_print_progress(const cJSON *exp) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(exp, "progress"), *s;
        struct json_print_progress ret = { 0 };
        size_t n = 0;
        json_print_num(p, "done", &ret.done);
        json_print_num(p, "total", &ret.total);
        cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(p, "by_state")) {
                if (!cJSON_IsNumber(s) || s->valuedouble <= 0 || !under_way(s->string))
                        continue;
                int k = snprintf(ret.phases + n, sizeof ret.phases - n, "%s%.0f %s", n ? ", " : "",
                                 s->valuedouble, s->string);
                if (k < 0 || (size_t) k >= sizeof ret.phases - n) {
                        ret.phases[n] = '\0';
                        break;
                }
                n += (size_t) k;
        }
        return ret;
}

int json_print_get(struct http *h, bool json, const char *path, void (*show)(const cJSON *j)) {
        _cleanup_json_ cJSON *j = NULL;
        int k = http_get_json(h, path, &j);
        if (k != 0)
                return k;
        if (json)
                json_print(j);
        else
                show(j);
        return EXIT_OK;
}
