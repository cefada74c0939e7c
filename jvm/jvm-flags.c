/* jvm-flags.c: the JVM's ergonomics from -XX:+PrintFlagsFinal and the GC log's init lines. */
#include "jvm/jvm-flags.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "basic/json-util.h"
#include "jvm/jvm-collectors.h"
#include "jvm/jvm-lines.h"

#define FLAGS_HEADER "[Global flags]"

enum flag_type { FLAG_INT, FLAG_BOOL };

/* The flags slicelab reports, and where each one goes in struct jvm_info. */
static const struct known_flag {
        const char *name;
        enum flag_type type;
        size_t has_offset, value_offset;
} known_flags[] = {
#define INT_FLAG(n, field) { n, FLAG_INT, offsetof(struct jvm_info, has_##field), offsetof(struct jvm_info, field) }
#define BOOL_FLAG(n, field) { n, FLAG_BOOL, offsetof(struct jvm_info, has_##field), offsetof(struct jvm_info, field) }
        INT_FLAG("CICompilerCount", ci_compiler_count),
        INT_FLAG("ParallelGCThreads", parallel_gc_threads),
        INT_FLAG("ConcGCThreads", conc_gc_threads),
        INT_FLAG("MaxHeapSize", max_heap_size),
        BOOL_FLAG("UseContainerSupport", use_container_support),
#undef INT_FLAG
#undef BOOL_FLAG
};

void jvm_info_init(struct jvm_info *info) {
        *info = (struct jvm_info) { .gc = NULL };
}

/* The next run of non-space characters: [*ret, *ret + *ret_len). */
static const char *next_token(const char *p, const char **ret, size_t *ret_len) {
        while (*p == ' ' || *p == '\t')
                p++;
        const char *s = p;
        while (*p && *p != ' ' && *p != '\t')
                p++;
        *ret = s;
        *ret_len = (size_t) (p - s);
        return p;
}

static bool token_is(const char *tok, size_t len, const char *lit) {
        return strlen(lit) == len && memcmp(tok, lit, len) == 0;
}

static bool parse_int_token(const char *tok, size_t len, int64_t *ret) {
        char buf[32];
        if (len == 0 || len >= sizeof buf)
                return false;
        memcpy(buf, tok, len);
        buf[len] = '\0';
        char *end;
        errno = 0;
        long long v = strtoll(buf, &end, 10);
        if (errno != 0 || *end != '\0' || (buf[0] != '-' && (buf[0] < '0' || buf[0] > '9')))
                return false;
        *ret = v;
        return true;
}

/* "<type> <name> {=|:=} [<value>] {<kind>}[ {<origin>}]" (JDK 9+; JDK 8 has one {} group and
 * ":=" for changed flags). Returns false for a line that is not a flag line, which ends the
 * table. Only the flags above are stored; their values are single tokens. */
static bool parse_flag_line(const char *line, struct jvm_info *info) {
        const char *type, *name, *op, *value;
        size_t type_len, name_len, op_len, value_len;
        const char *p = line;

        p = next_token(p, &type, &type_len);
        p = next_token(p, &name, &name_len);
        p = next_token(p, &op, &op_len);
        if (type_len == 0 || name_len == 0 || !(token_is(op, op_len, "=") || token_is(op, op_len, ":=")))
                return false;
        const char *brace = strstr(p, " {");
        const char *close = strrchr(p, '}');
        if (!brace || !close || close[1] != '\0')
                return false;
        next_token(p, &value, &value_len);
        if (value == brace + 1)         /* empty value (a ccstr) */
                value_len = 0;

        /* HotSpot refuses to start with two collectors, so at most one of them is true. */
        const char *collector = jvm_collector_by_flag(name, name_len);
        if (collector && token_is(value, value_len, "true"))
                info->gc = collector;

        for (size_t i = 0; i < ELEMENTSOF(known_flags); i++) {
                const struct known_flag *k = &known_flags[i];
                if (!token_is(name, name_len, k->name))
                        continue;
                bool *has = (bool *) ((char *) info + k->has_offset);
                if (k->type == FLAG_BOOL) {
                        bool *v = (bool *) ((char *) info + k->value_offset);
                        if (token_is(value, value_len, "true") || token_is(value, value_len, "false")) {
                                *v = value[0] == 't';
                                *has = true;
                        }
                } else {
                        int64_t *v = (int64_t *) ((char *) info + k->value_offset);
                        *has = parse_int_token(value, value_len, v);
                }
        }
        return true;
}

int jvm_flags_parse_file(FILE *f, struct jvm_info *info) {
        struct jvm_info n = *info;
        char line[JVM_LINE_MAX + 1];
        bool in_table = false;
        int r;

        /* a line too long to see whole (e.g. a ccstr flag with a huge value) is skipped */
        while ((r = jvm_next_line(f, line, sizeof line, NULL, NULL, NULL)) > 0) {
                if (!in_table) {
                        if (strcmp(line, FLAGS_HEADER) == 0)
                                in_table = n.flags_table_found = true;
                        continue;
                }
                if (!parse_flag_line(line, &n))
                        break;
        }
        if (r < 0)
                return r;
        *info = n;
        return 0;
}

int jvm_flags_parse_path(const char *path, struct jvm_info *info) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return negative_errno();
        return jvm_flags_parse_file(f, info);
}

void jvm_info_apply_gclog(struct jvm_info *info, const struct jvm_gclog_info *gc) {
        if (gc->has_cpus) {
                info->has_active_processor_count = info->has_cpus_total = true;
                info->active_processor_count = gc->cpus_available;
                info->cpus_total = gc->cpus_total;
        }
        if (gc->version[0])
                snprintf(info->java_version, sizeof info->java_version, "%s", gc->version);
        if (!info->gc)
                info->gc = gc->collector;
}

cJSON *jvm_info_to_json(const struct jvm_info *info) {
        cJSON *o = cJSON_CreateObject();
        json_add_number_or_null(o, "CICompilerCount", info->has_ci_compiler_count, (double) info->ci_compiler_count);
        json_add_number_or_null(o, "ParallelGCThreads", info->has_parallel_gc_threads, (double) info->parallel_gc_threads);
        json_add_number_or_null(o, "ConcGCThreads", info->has_conc_gc_threads, (double) info->conc_gc_threads);
        json_add_number_or_null(o, "ActiveProcessorCount", info->has_active_processor_count, (double) info->active_processor_count);
        json_add_number_or_null(o, "MaxHeapSize", info->has_max_heap_size, (double) info->max_heap_size);
        if (info->has_use_container_support)
                cJSON_AddBoolToObject(o, "UseContainerSupport", info->use_container_support);
        else
                cJSON_AddNullToObject(o, "UseContainerSupport");
        json_add_string_or_null(o, "gc", info->gc);
        json_add_string_or_null(o, "java_version", info->java_version[0] ? info->java_version : NULL);
        return o;
}
