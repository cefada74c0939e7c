/* definition-kv.c: the definition's string-to-string objects (sut.env, cells[].env, labels):
 * one parser, one free and one formatter; what differs between them (bounds, the key's rule, the
 * nouns of the messages) is a struct def_kv_rules. */
#include <string.h>

#include "definition/definition-internal.h"

bool definition_kv_label_key_valid(const char *key) {
        size_t n = strlen(key);
        return n >= 1 && n <= DEFINITION_LABEL_KEY_MAX &&
               strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

static int check_label_key(const char *key, const char *path, struct error *err) {
        if (definition_kv_label_key_valid(key))
                return 0;
        char q[96];
        def_quote(q, sizeof q, key);
        /* a hostile key never goes into the path: the field names the object */
        return def_error(err, "invalid_value", path, "label keys must be 1 to %d of [a-z0-9_.-], got %s",
                         DEFINITION_LABEL_KEY_MAX, q);
}

const struct def_kv_rules def_kv_env_rules = {
        .noun = "variable",
        .nouns = "variables",
        .max = DEFINITION_ENV_MAX,
        .value_max = DEFINITION_ENV_VALUE_MAX,
        .check_key = def_check_env_key,
};

const struct def_kv_rules def_kv_label_rules = {
        .noun = "label",
        .nouns = "labels",
        .max = DEFINITION_LABELS_MAX,
        .value_max = DEFINITION_LABEL_VALUE_MAX,
        .check_key = check_label_key,
};

void def_kv_done(struct definition_kv *kv) {
        for (size_t i = 0; i < kv->n; i++) {
                free(kv->keys[i]);
                free(kv->values[i]);
        }
        free(kv->keys);
        free(kv->values);
        *kv = (struct definition_kv){ 0 };
}

static int member_key_cmp(const void *a, const void *b) {
        return strcmp((*(const cJSON *const *) a)->string, (*(const cJSON *const *) b)->string);
}

/* Members sorted by key so that duplicates are neighbours and the result is in canonical order. */
int def_kv_parse(const cJSON *v, const char *path, const struct def_kv_rules *rules, struct definition_kv *ret,
                 struct error *err) {
        _cleanup_free_ const cJSON **members = NULL;
        struct definition_kv kv = { 0 };
        const cJSON *c;
        size_t n;
        int r;

        r = def_expect_object(v, path, err);
        if (r < 0)
                return r;
        n = (size_t) cJSON_GetArraySize(v);
        if (n > rules->max)
                return def_error(err, "out_of_range", path, "must have at most %zu %s, got %zu", rules->max,
                                 rules->nouns, n);
        if (n == 0) {
                *ret = kv;
                return 0;
        }
        members = calloc(n, sizeof *members);
        kv.keys = calloc(n, sizeof(char *));
        kv.values = calloc(n, sizeof(char *));
        if (!members || !kv.keys || !kv.values) {
                def_kv_done(&kv);
                return def_oom(err);
        }
        n = 0;
        cJSON_ArrayForEach(c, v) {
                r = rules->check_key(c->string, path, err);
                if (r < 0)
                        goto fail;
                members[n++] = c;
        }
        qsort(members, n, sizeof *members, member_key_cmp);
        for (size_t i = 0; i < n; i++) {
                char p[DEF_PATH_MAX];
                def_path_key(p, path, members[i]->string);
                if (i > 0 && strcmp(members[i - 1]->string, members[i]->string) == 0) {
                        r = def_error(err, "duplicate_field", p, "%s \"%s\" appears more than once", rules->noun,
                                      members[i]->string);
                        goto fail;
                }
                r = def_get_string(members[i], p, rules->value_max, DEF_STRING_ALLOW_EMPTY, &kv.values[kv.n], err);
                if (r < 0)
                        goto fail;
                kv.keys[kv.n] = strdup(members[i]->string);
                kv.n++;
                if (!kv.keys[kv.n - 1]) {
                        r = def_oom(err);
                        goto fail;
                }
        }
        *ret = kv;
        return 0;
fail:
        def_kv_done(&kv);
        return r;
}

void def_kv_format(cJSON *obj, const char *key, const struct definition_kv *kv) {
        if (kv->n == 0)
                return;
        cJSON *o = cJSON_AddObjectToObject(obj, key);
        for (size_t i = 0; i < kv->n; i++)
                cJSON_AddStringToObject(o, kv->keys[i], kv->values[i]);
}
