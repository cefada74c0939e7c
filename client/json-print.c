/* json-print.c: reading and printing the daemon's JSON for the client's commands (see
 * json-print.h). */
#include <stdio.h>

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

struct json_print_progress json_print_progress(const cJSON *exp) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(exp, "progress");
        struct json_print_progress ret = { 0 };
        json_print_num(p, "done", &ret.done);
        json_print_num(p, "total", &ret.total);
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
