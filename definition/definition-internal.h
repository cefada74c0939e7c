/* definition-internal.h: helpers shared by the definition/ files (JSON access with error paths,
 * value syntaxes), all under the folder's internal prefix def_; not for use outside definition/. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "definition/definition.h"
#include "basic/json-util.h"

#define DEF_PATH_MAX 128        /* = sizeof(struct error.field) */

/* JSON names of the enums, indexed by value (definition-names.c); NULL where a value has no name. */
extern const char *const def_order_names[3];
extern const char *const def_mode_names[3];
extern const char *const def_arrival_names[2];
extern const char *const def_smt_names[3];
extern const char *const def_thp_names[4];
extern const char *const def_on_mismatch_names[2];

/* error_set() with status 400. */
int def_error(struct error *err, const char *code, const char *path, const char *fmt, ...)
        _printf_(4, 5);
int def_oom(struct error *err);

/* Child paths: "a.b" ("b" at the root), "a[3]". Truncation cannot happen with the schema's
 * own keys; hostile keys are never put into a path (see json_check_members). */
void def_path_key(char *buf, const char *parent, const char *key);
void def_path_index(char *buf, const char *parent, size_t index);

/* s quoted for a message: valid printable UTF-8 kept, other bytes as \xNN, cut at ~60 bytes. */
void def_quote(char *buf, size_t size, const char *s);
const char *def_type_name(const cJSON *v);
/* d has no fractional part (infinities pass: check isfinite first); without libm, which the
 * API library does not link. */
bool def_is_integral(double d);
/* The shortest text that reads back as v (integral values without exponent), as JSON wants it
 * for finite v. */
void def_format_double(char *buf, size_t size, double v);
/* The injector's options of l as the canonical JSON writes them (definition-format.c): target,
 * mode, rate, arrival, connections, timeout_ms, and the phases or the capacity search's. */
void def_format_injector(cJSON *o, const struct definition_load *l);

/* The body is one RFC 8259 JSON value by json_check() (basic/json-check.h), nested at most
 * DEFINITION_DEPTH_MAX deep (which also bounds cJSON's recursion), with a bounded number of
 * values: 400 invalid_json, too_deep or too_many_values. */
int def_json_prescan(const char *s, size_t len, struct error *err);

/* Every member of obj (an object) is one of known[] and appears once. */
int def_check_members(const cJSON *obj, const char *path, const char *const *known, size_t n_known,
                      struct error *err);
/* Type checks that name the path and the type seen (null included). */
int def_expect_object(const cJSON *v, const char *path, struct error *err);
int def_expect_array(const cJSON *v, const char *path, size_t min, size_t max, struct error *err);

enum def_string_flags {
        DEF_STRING_ALLOW_EMPTY = 1 << 0,
        DEF_STRING_NAME = 1 << 1,       /* also no bidi/format characters, no edge spaces */
};
/* A string of at most max_len bytes, valid UTF-8, no control characters; *ret strdup'ed. */
int def_get_string(const cJSON *v, const char *path, size_t max_len, unsigned flags, char **ret,
                   struct error *err);
/* An integral number in [min, max]. */
int def_get_uint(const cJSON *v, const char *path, uint64_t min, uint64_t max, uint64_t *ret,
                 struct error *err);
/* A finite number in (min_exclusive, max]. */
int def_get_number(const cJSON *v, const char *path, double min_exclusive, double max, double *ret,
                   struct error *err);
int def_get_bool(const cJSON *v, const char *path, bool *ret, struct error *err);
/* A string equal to one of names[] (NULL entries skipped); *ret its index. */
int def_get_enum(const cJSON *v, const char *path, const char *const *names, size_t n, int *ret,
                 struct error *err);
/* An array of 1..max strings (0..max with allow_empty_list), each <= DEFINITION_ARG_MAX bytes,
 * as a NULL-terminated strv. */
int def_get_strv(const cJSON *v, const char *path, size_t min, size_t max, char ***ret,
                 size_t *n, struct error *err);

/* Value syntaxes (definition-values.c). Each parses text found at path. */
int def_parse_memory(const cJSON *v, const char *path, const struct host_limits *host,
                     uint64_t *ret, struct error *err);
int def_parse_url(const char *s, const char *path, struct definition_url *ret, struct error *err);
int def_parse_host_port(const char *s, const char *path, char **ret_host, bool *ret_ipv6,
                        uint16_t *ret_port, struct error *err);
/* A host name (RFC 1123) or an IPv4/IPv6 literal without brackets, lower-cased into *ret. */
int def_parse_host(const char *s, const char *path, char **ret, struct error *err);
/* host (as def_parse_url() keeps it) names this machine to whoever connects to it: localhost
 * (and *.localhost, RFC 6761), 127.0.0.0/8, ::1, or an unspecified address (0.0.0.0, ::), also
 * IPv4-mapped. */
bool def_host_is_local(const char *host);
int def_check_regex(const char *s, const char *path, struct error *err);
int def_check_command(char **argv, const char *path, struct error *err);
int def_check_env_key(const char *key, const char *path, struct error *err);
int def_check_timeline_path(const char *s, const char *path, struct error *err);
int def_parse_cpulist(const cJSON *v, const char *path, const struct cpulist *online,
                      const char *what, struct cpulist *ret, struct error *err);
/* A parsed size such as "-Xmx1g"'s "1g" in bytes (k/m/g/t, either case); -EINVAL otherwise. */
int def_parse_jvm_size(const char *s, uint64_t *ret);

/* "host:port", "[v6]:port"; size >= DEFINITION_URL_MAX. */
void def_format_host_port(char *buf, size_t size, const char *host, bool ipv6, uint16_t port);
void def_url_done(struct definition_url *u);

/* String-to-string objects (definition-kv.c): what one kind (env, labels) allows. */
struct def_kv_rules {
        const char *noun, *nouns;       /* "variable", "variables": for messages */
        size_t max;                     /* members */
        size_t value_max;               /* bytes per value */
        /* 0, or an error naming path (never a hostile key in it) */
        int (*check_key)(const char *key, const char *path, struct error *err);
};
extern const struct def_kv_rules def_kv_env_rules, def_kv_label_rules;
/* The object v at path, sorted by key, a duplicate key refused. */
int def_kv_parse(const cJSON *v, const char *path, const struct def_kv_rules *rules, struct definition_kv *ret,
                 struct error *err);
void def_kv_done(struct definition_kv *kv);
/* kv as member key of obj; nothing when kv is empty (canonical JSON omits it). */
void def_kv_format(cJSON *obj, const char *key, const struct definition_kv *kv);

/* checks (definition-checks.c); they need d->cells parsed. */
int def_parse_checks(const cJSON *v, struct definition *d, struct error *err);
void def_checks_free(struct definition_check *c, size_t n);

/* The warnings d is accepted with (definition-warnings.c), appended to d->warnings; -ENOMEM only. */
int def_warnings_collect(struct definition *d);

/* The capacity members of load (definition-capacity.c): sla, rate_min, rate_max, step,
 * precision; or, for another mode, a conflict if any is given. */
int def_parse_capacity(const cJSON *v, struct definition_load *load, struct error *err);

/* iterations and stop (definition-stop.c): iterations before the cells, stop after them. */
int def_parse_iterations(const cJSON *v, struct definition *d, struct error *err);
int def_parse_stop(const cJSON *v, struct definition *d, struct error *err);
void def_format_iterations(cJSON *root, const struct definition *d);
void def_format_stop(cJSON *root, const struct definition *d);

/* The placeholder at s ("{name}"): its length with the braces, 0 when s opens none. */
size_t def_placeholder_len(const char *s);

/* Cells from a template (definition-template.c): each cell's vars, and the strings that hold
 * placeholders as given (for the canonical JSON: [path keys and indexes..., text]). */
struct def_template {
        size_t n_cells;
        struct definition_kv *vars;     /* per cell, sorted by name; empty for a cell without */
        cJSON *raw;
};
/* *ret NULL when no cell of root has vars; else the template, every placeholder known to the
 * vars that fill it and every variable used, or a 400 naming the field. */
int def_template_read(cJSON *root, struct def_template **ret, struct error *err);
/* A copy of root with cell's values substituted (each cell's jvm_args its own) and no vars. */
int def_template_expand(const cJSON *root, const struct def_template *t, size_t cell, cJSON **ret);
/* The canonical JSON root of an expansion back to the template: the vars and the raw strings. */
void def_template_format(cJSON *root, const struct def_template *t);
void def_template_free(struct def_template *t);
DEFINE_POINTER_CLEANUP(struct def_template, def_template_free)
