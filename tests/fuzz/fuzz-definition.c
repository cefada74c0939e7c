/* fuzz-definition.c: libFuzzer target for the experiment definition parser. Beyond "no crash,
 * no leak, no UB" it checks the parser's promises: a rejection leaves *ret alone and fills an
 * error whose field and message are valid UTF-8 for the JSON error body; an accepted definition
 * is also accepted without host checks, its canonical JSON parses back to itself, and its run
 * plans and cell argv/env can be built; and whatever the JSON pre-scan accepts, cJSON parses
 * (so cJSON never records a failure in its global). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basic/utf8.h"
#include "definition/definition-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x)                 \
        do {                     \
                if (!(x))        \
                        abort(); \
        } while (0)

static void check_utf8(const char *s) {
        size_t len = strlen(s);
        for (size_t i = 0; i < len;) {
                uint32_t cp = 0;
                size_t n = utf8_decode(s + i, len - i, &cp);
                CHECK(n > 0 && cp >= 0x20);
                i += n;
        }
}

static void check_error(int r, const struct definition *d, const struct definition *sentinel,
                        const struct error *err) {
        CHECK(r < 0);
        CHECK(d == sentinel);
        CHECK(err->status == 400 || err->status == 413 || err->status == 500);
        CHECK(err->code[0] != '\0');
        check_utf8(err->field);
        check_utf8(err->message);
}

static void check_definition(const struct definition *d, const struct host_limits *host) {
        struct definition *again = NULL;
        struct error err = { 0 };

        CHECK(definition_parse(d->canonical, strlen(d->canonical), host, &again, &err) == 0);
        CHECK(strcmp(again->canonical, d->canonical) == 0);
        definition_free(again);

        for (int o = DEFINITION_ORDER_INTERLEAVED; o <= DEFINITION_ORDER_RANDOM; o++) {
                struct definition copy = *d;
                struct planned_run *runs = NULL;
                size_t n = 0;
                copy.order = (enum definition_order) o;
                CHECK(definition_plan_runs(&copy, d->seed, &runs, &n) == 0);
                CHECK(n == d->n_cells * d->iterations);
                for (size_t i = 0; i < n; i++)
                        CHECK(runs[i].cell < d->n_cells && runs[i].iteration < d->iterations);
                free(runs);
        }
        for (size_t i = 0; i < d->n_cells; i++) {
                char **argv = NULL, **env = NULL;
                CHECK(definition_cell_argv(d, i, &argv) == 0 && argv[0] && argv[0][0]);
                CHECK(definition_cell_env(d, i, &env) == 0);
                for (char **e = env; *e; e++)
                        CHECK(strchr(*e, '=') != NULL);
                definition_strv_free(argv);
                definition_strv_free(env);
        }
        for (size_t i = 0; i < d->n_warnings; i++)
                check_utf8(d->warnings[i]);
}

/* The pre-scan is stricter than cJSON, never more lenient. */
static void check_prescan(const uint8_t *data, size_t size) {
        struct error err = { 0 };
        if (size == 0 || size > DEFINITION_BODY_MAX || def_json_prescan((const char *) data, size, &err) < 0)
                return;
        char *copy = malloc(size + 1);
        CHECK(copy);
        memcpy(copy, data, size);
        copy[size] = '\0';
        const char *end = NULL;
        cJSON *root = cJSON_ParseWithLengthOpts(copy, size, &end, 0);
        CHECK(root);
        for (; end < copy + size; end++)
                CHECK(*end && strchr(" \t\r\n", *end));
        cJSON_Delete(root);
        free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static struct host_limits host;
        static int initialized;
        struct definition sentinel, *d = &sentinel, *loose = &sentinel;
        struct error err = { 0 };

        if (!initialized) {
                CHECK(cpulist_parse("0-15", &host.cpus) == 0);
                CHECK(cpulist_parse("0", &host.mems) == 0);
                host.memory_bytes = UINT64_C(64) << 30;
                initialized = 1;
        }

        check_prescan(data, size);
        int r = definition_parse((const char *) data, size, &host, &d, &err);
        if (r < 0) {
                check_error(r, d, &sentinel, &err);
                /* without a host fewer checks apply; either way the promises hold */
                struct error err2 = { 0 };
                r = definition_parse((const char *) data, size, NULL, &loose, &err2);
                if (r < 0)
                        check_error(r, loose, &sentinel, &err2);
                else {
                        check_definition(loose, NULL);
                        definition_free(loose);
                }
                return 0;
        }
        check_definition(d, &host);

        /* host checks only ever restrict */
        r = definition_parse((const char *) data, size, NULL, &loose, &err);
        CHECK(r == 0);
        CHECK(strcmp(loose->canonical, d->canonical) == 0);
        definition_free(loose);
        definition_free(d);
        return 0;
}
