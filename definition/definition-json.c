/* definition-json.c: the JSON layer of the definition parser: a strict pre-scan of the raw body
 * for what cJSON lets through, and typed access to cJSON values that reports the JSON path and
 * the value seen on every rejection. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "basic/json-check.h"
#include "basic/utf8.h"
#include "definition/definition-internal.h"

/* Bound on JSON values in a body, so a 1 MiB body of [0,0,...] cannot cost hundreds of MiB of
 * cJSON nodes; the largest meaningful definition has some 40000. */
#define DEF_VALUES_MAX 65536

int def_error(struct error *err, const char *code, const char *path, const char *fmt, ...) {
        char msg[sizeof err->message];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        return error_set(err, 400, code, path, "%s", msg);
}

int def_oom(struct error *err) {
        error_set(err, 500, "internal", "", "out of memory");
        return -ENOMEM;
}

void def_path_key(char *buf, const char *parent, const char *key) {
        snprintf(buf, DEF_PATH_MAX, "%s%s%s", parent, *parent ? "." : "", key);
}

void def_path_index(char *buf, const char *parent, size_t index) {
        snprintf(buf, DEF_PATH_MAX, "%s[%zu]", parent, index);
}

static bool is_control(uint32_t cp) {
        return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0);
}

/* Characters that change how a name is displayed without being seen. */
static bool is_invisible_format(uint32_t cp) {
        return cp == 0xad || cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) ||
               (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff ||
               (cp >= 0xfff9 && cp <= 0xfffb);
}

void def_quote(char *buf, size_t size, const char *s) {
        const size_t limit = 60;
        size_t o = 0, i = 0, len = strlen(s);

        if (size < 16) {
                if (size > 0)
                        buf[0] = '\0';
                return;
        }
        buf[o++] = '"';
        while (i < len && o + 8 < size) {
                uint32_t cp = 0;
                size_t n = utf8_decode(s + i, len - i, &cp);
                if (o > limit) {
                        o += (size_t) snprintf(buf + o, size - o, "...");
                        break;
                }
                if (n > 0 && !is_control(cp) && cp != '"' && cp != '\\') {
                        memcpy(buf + o, s + i, n);
                        o += n;
                        i += n;
                } else if (n > 0 && (cp == '"' || cp == '\\')) {
                        buf[o++] = '\\';
                        buf[o++] = (char) cp;
                        i++;
                } else {
                        o += (size_t) snprintf(buf + o, size - o, "\\x%02x", (unsigned char) s[i]);
                        i++;
                }
        }
        if (o + 2 > size)
                o = size - 2;
        buf[o++] = '"';
        buf[o] = '\0';
}

const char *def_type_name(const cJSON *v) {
        if (cJSON_IsNull(v))
                return "null";
        if (cJSON_IsBool(v))
                return "a boolean";
        if (cJSON_IsNumber(v))
                return "a number";
        if (cJSON_IsString(v))
                return "a string";
        if (cJSON_IsArray(v))
                return "an array";
        if (cJSON_IsObject(v))
                return "an object";
        return "an invalid value";
}

bool def_is_integral(double d) {
        /* from 2^53 on every double is an integer; below, the cast truncates exactly */
        return fabs(d) >= 9007199254740992.0 || d == (double) (int64_t) d;
}

void def_format_double(char *buf, size_t size, double v) {
        if (def_is_integral(v) && fabs(v) < 9007199254740992.0) {
                snprintf(buf, size, "%.0f", v);
                return;
        }
        for (int prec = 1; prec <= 17; prec++) {
                snprintf(buf, size, "%.*g", prec, v);
                if (strtod(buf, NULL) == v)
                        return;
        }
}

/* A key that reads well in a path (sut.env.LANG): others end the path at their parent. */
static bool plain_key(const char *k, size_t n) {
        if (n == 0 || n > 48)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!isalnum((unsigned char) k[i]) && k[i] != '_' && k[i] != '-')
                        return false;
        return true;
}

/* The JSON path of the current member or element of each of the first n levels. */
static void prescan_path(const char *s, const struct json_check_level *lv, unsigned n, char *buf) {
        char tmp[DEF_PATH_MAX];
        buf[0] = '\0';
        for (unsigned d = 1; d <= n; d++) {
                if (!lv[d].in_object)
                        def_path_index(tmp, buf, lv[d].index);
                else if (plain_key(s + lv[d].key_at, lv[d].key_len)) {
                        char key[49];
                        memcpy(key, s + lv[d].key_at, lv[d].key_len);
                        key[lv[d].key_len] = '\0';
                        def_path_key(tmp, buf, key);
                } else
                        return;
                memcpy(buf, tmp, DEF_PATH_MAX);
        }
}

/* Invalid UTF-8 in a string: a 400 naming the field whose value (or one of whose keys) it is. */
static int prescan_utf8_error(const char *s, const struct json_check_level *lv, const struct json_check_result *why,
                              struct error *err) {
        char path[DEF_PATH_MAX];
        prescan_path(s, lv, why->in_key ? why->depth - 1 : why->depth, path);
        return def_error(err, "invalid_utf8", path, "%s%s must be UTF-8: the byte 0x%02x at byte %zu of the body begins "
                         "no character", why->in_key ? "a key of " : "", path[0] ? path : "the body",
                         (unsigned char) s[why->at], why->at);
}

/* cJSON is only handed bodies that pass json_check(): it keeps the position of its last failure
 * in a global, which concurrent API threads would race on. */
int def_json_prescan(const char *s, size_t len, struct error *err) {
        struct json_check_level lv[DEFINITION_DEPTH_MAX + 1];
        struct json_check_result why;
        if (json_check(s, len, DEFINITION_DEPTH_MAX, DEF_VALUES_MAX, lv, &why) >= 0)
                return 0;
        switch (why.fault) {
        case JSON_CHECK_UTF8:
                return prescan_utf8_error(s, lv, &why, err);
        case JSON_CHECK_TOO_DEEP:
                return def_error(err, "too_deep", "", "body nests objects and arrays more than %d deep", DEFINITION_DEPTH_MAX);
        case JSON_CHECK_TOO_MANY:
                return def_error(err, "too_many_values", "", "body has more than %d JSON values", DEF_VALUES_MAX);
        default:
                return def_error(err, "invalid_json", "", "body is not valid JSON: %s at byte %zu", why.what, why.at);
        }
}

int def_check_members(const cJSON *obj, const char *path, const char *const *known, size_t n_known,
                      struct error *err) {
        uint64_t seen = 0;
        const cJSON *c;

        cJSON_ArrayForEach(c, obj) {
                size_t k;
                for (k = 0; k < n_known; k++)
                        if (strcmp(c->string, known[k]) == 0)
                                break;
                if (k == n_known) {
                        char list[256] = "", q[96];
                        size_t o = 0;
                        for (size_t j = 0; j < n_known && o < sizeof list; j++)
                                o += (size_t) snprintf(list + o, sizeof list - o, "%s%s", j ? ", " : "",
                                                       known[j]);
                        def_quote(q, sizeof q, c->string);
                        /* only a plain key goes into the path: the field must stay readable */
                        bool plain = strlen(c->string) <= 48 && c->string[0] &&
                                     strspn(c->string, "abcdefghijklmnopqrstuvwxyz"
                                                       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                                             strlen(c->string);
                        char p[DEF_PATH_MAX];
                        if (plain)
                                def_path_key(p, path, c->string);
                        else
                                snprintf(p, sizeof p, "%s", path);
                        return def_error(err, "unknown_field", p, "unknown field %s (allowed: %s)", q, list);
                }
                if (seen & (UINT64_C(1) << k)) {
                        char p[DEF_PATH_MAX];
                        def_path_key(p, path, known[k]);
                        return def_error(err, "duplicate_field", p, "field \"%s\" appears more than once",
                                         known[k]);
                }
                seen |= UINT64_C(1) << k;
        }
        return 0;
}

int def_expect_object(const cJSON *v, const char *path, struct error *err) {
        if (!cJSON_IsObject(v))
                return def_error(err, "wrong_type", path, "must be an object, got %s", def_type_name(v));
        return 0;
}

int def_expect_array(const cJSON *v, const char *path, size_t min, size_t max, struct error *err) {
        if (!cJSON_IsArray(v))
                return def_error(err, "wrong_type", path, "must be an array, got %s", def_type_name(v));
        size_t n = (size_t) cJSON_GetArraySize(v);
        if (n < min || n > max)
                return def_error(err, "out_of_range", path, "must have %zu to %zu entries, got %zu", min,
                                 max, n);
        return 0;
}

int def_get_string(const cJSON *v, const char *path, size_t max_len, unsigned flags, char **ret,
                   struct error *err) {
        if (!cJSON_IsString(v) || !v->valuestring)
                return def_error(err, "wrong_type", path, "must be a string, got %s", def_type_name(v));

        const char *s = v->valuestring;
        size_t len = strlen(s);
        if (len == 0 && !(flags & DEF_STRING_ALLOW_EMPTY))
                return def_error(err, "invalid_value", path, "must not be empty");
        if (len > max_len)
                return def_error(err, "out_of_range", path, "must be at most %zu bytes long, got %zu bytes",
                                 max_len, len);
        for (size_t i = 0; i < len;) {
                uint32_t cp = 0;
                size_t n = utf8_decode(s + i, len - i, &cp);
                if (n == 0)
                        return def_error(err, "invalid_value", path, "is not valid UTF-8 (byte %zu)", i);
                if (is_control(cp))
                        return def_error(err, "invalid_value", path,
                                         "must not contain control characters, got U+%04X at byte %zu",
                                         (unsigned) cp, i);
                if ((flags & DEF_STRING_NAME) && is_invisible_format(cp))
                        return def_error(err, "invalid_value", path,
                                         "must not contain invisible formatting characters, got U+%04X at byte %zu",
                                         (unsigned) cp, i);
                i += n;
        }
        if ((flags & DEF_STRING_NAME) && len > 0 && (s[0] == ' ' || s[len - 1] == ' ')) {
                char q[96];
                def_quote(q, sizeof q, s);
                return def_error(err, "invalid_value", path,
                                 "must not begin or end with a space, got %s", q);
        }
        char *copy = strdup(s);
        if (!copy)
                return def_oom(err);
        *ret = copy;
        return 0;
}

int def_get_uint(const cJSON *v, const char *path, uint64_t min, uint64_t max, uint64_t *ret,
                 struct error *err) {
        if (!cJSON_IsNumber(v))
                return def_error(err, "wrong_type", path, "must be an integer, got %s", def_type_name(v));
        double d = v->valuedouble;
        if (!isfinite(d))
                return def_error(err, "out_of_range", path,
                                 "must be an integer from %llu to %llu, got a number beyond any range",
                                 (unsigned long long) min, (unsigned long long) max);
        char seen[64];
        def_format_double(seen, sizeof seen, d);
        if (!def_is_integral(d))
                return def_error(err, "wrong_type", path, "must be an integer, got %s", seen);
        if (d < (double) min || d > (double) max)
                return def_error(err, "out_of_range", path, "must be from %llu to %llu, got %s",
                                 (unsigned long long) min, (unsigned long long) max, seen);
        *ret = (uint64_t) d;
        return 0;
}

int def_get_number(const cJSON *v, const char *path, double min_exclusive, double max, double *ret,
                   struct error *err) {
        if (!cJSON_IsNumber(v))
                return def_error(err, "wrong_type", path, "must be a number, got %s", def_type_name(v));
        double d = v->valuedouble;
        if (!isfinite(d))
                return def_error(err, "out_of_range", path,
                                 "must be more than %g and at most %g, got a number beyond any range",
                                 min_exclusive, max);
        char seen[64];
        def_format_double(seen, sizeof seen, d);
        if (!(d > min_exclusive && d <= max))
                return def_error(err, "out_of_range", path, "must be more than %g and at most %g, got %s",
                                 min_exclusive, max, seen);
        *ret = d;
        return 0;
}

int def_get_bool(const cJSON *v, const char *path, bool *ret, struct error *err) {
        if (!cJSON_IsBool(v))
                return def_error(err, "wrong_type", path, "must be true or false, got %s",
                                 def_type_name(v));
        *ret = cJSON_IsTrue(v);
        return 0;
}

int def_get_enum(const cJSON *v, const char *path, const char *const *names, size_t n, int *ret,
                 struct error *err) {
        char list[256] = "", q[96];
        size_t o = 0;

        for (size_t k = 0; k < n; k++)
                if (names[k] && cJSON_IsString(v) && v->valuestring && strcmp(v->valuestring, names[k]) == 0) {
                        *ret = (int) k;
                        return 0;
                }
        for (size_t k = 0; k < n && o < sizeof list; k++)
                if (names[k])
                        o += (size_t) snprintf(list + o, sizeof list - o, "%s\"%s\"", o ? ", " : "",
                                               names[k]);
        if (!cJSON_IsString(v) || !v->valuestring)
                return def_error(err, "wrong_type", path, "must be one of %s, got %s", list,
                                 def_type_name(v));
        def_quote(q, sizeof q, v->valuestring);
        return def_error(err, "invalid_value", path, "must be one of %s, got %s", list, q);
}

int def_get_strv(const cJSON *v, const char *path, size_t min, size_t max, char ***ret,
                 size_t *n, struct error *err) {
        int r = def_expect_array(v, path, min, max, err);
        if (r < 0)
                return r;

        size_t count = (size_t) cJSON_GetArraySize(v), i = 0;
        _cleanup_(definition_strv_freep) char **l = calloc(count + 1, sizeof(char *));
        if (!l)
                return def_oom(err);
        const cJSON *e;
        cJSON_ArrayForEach(e, v) {
                char p[DEF_PATH_MAX];
                def_path_index(p, path, i);
                r = def_get_string(e, p, DEFINITION_ARG_MAX, DEF_STRING_ALLOW_EMPTY, &l[i], err);
                if (r < 0)
                        return r;
                i++;
        }
        *ret = TAKE_PTR(l);
        *n = count;
        return 0;
}
