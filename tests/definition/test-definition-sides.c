/* test-definition-sides.c: a template from the two sides of a change (definition-sides.c): the
 * strings that differ at the template's sites become placeholders the first version's values
 * make, the last version's must make the after side; any other difference, a version that does
 * not make its side, sides that are templates themselves, and sides alike are refused naming the
 * field; what only the sides may differ in (names, labels, iterations, other cells) is ignored. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "definition/definition-sides.h"

#define BEFORE                                                                                  \
        "{\"name\":\"shop r101\",\"labels\":{\"app\":\"shop\"},\"iterations\":3,"            \
        "\"order\":\"random\",\"seed\":7,"                                                     \
        "\"sut\":{\"command\":[\"/usr/bin/java\",\"-jar\",\"/srv/builds/101/shop.jar\","        \
        "\"--tag\",\"1.4.1\"]},"                                                             \
        "\"load\":{\"target\":\"http://127.0.0.1:8080/\",\"rate\":100},"                       \
        "\"cells\":[{\"name\":\"A\",\"cpus\":\"1\"},{\"name\":\"B\",\"cpus\":\"2\","         \
        "\"jvm_args\":[\"-Xmx1g\"]}]}"
#define AFTER                                                                                   \
        "{\"name\":\"shop r104\",\"labels\":{\"app\":\"shop\",\"build\":\"104\"},"          \
        "\"iterations\":5,\"seed\":9,"                                                       \
        "\"sut\":{\"command\":[\"/usr/bin/java\",\"-jar\",\"/srv/builds/104/shop.jar\","        \
        "\"--tag\",\"1.4.10\"]},"                                                            \
        "\"load\":{\"target\":\"http://127.0.0.1:8080/\",\"rate\":100},"                       \
        "\"cells\":[{\"name\":\"A\",\"cpus\":\"3\"},{\"name\":\"B\",\"cpus\":\"2\","         \
        "\"jvm_args\":[\"-Xmx1g\"]}]}"

struct sides_case {
        cJSON *before, *after, *first, *last;
};

static void load(struct sides_case *c, const char *before, const char *after, const char *first, const char *last) {
        c->before = cJSON_Parse(before);
        c->after = cJSON_Parse(after);
        c->first = first ? cJSON_Parse(first) : NULL;
        c->last = last ? cJSON_Parse(last) : NULL;
        assert_non_null(c->before);
        assert_non_null(c->after);
}

static void done(struct sides_case *c) {
        cJSON_Delete(c->before);
        cJSON_Delete(c->after);
        cJSON_Delete(c->first);
        cJSON_Delete(c->last);
}

/* Run the case for cell B; 0 or the error's status, field in err. */
static int run(struct sides_case *c, struct definition_sides *s, struct error *err) {
        struct definition_sides_versions v = { c->first, c->last, "versions[0].vars", "versions[3].vars" };
        int r = definition_sides_template(c->before, c->after, "B", c->first ? &v : NULL, s, err);
        return r < 0 ? err->status : 0;
}

/* The sides also differ in cell A's cpus, their names, labels, iterations, order and seed: not
 * for cell B, and not what a version is. */
static void test_template(void **state) {
        struct sides_case c;
        load(&c, BEFORE, AFTER, "{\"build\":\"101\",\"tag\":\"1.4.1\"}", "{\"build\":\"104\",\"tag\":\"1.4.10\"}");
        struct definition_sides s = { 0 };
        struct error err = { 0 };
        assert_int_equal(run(&c, &s, &err), 0);
        const cJSON *command = cJSON_GetObjectItem(cJSON_GetObjectItem(s.definition, "sut"), "command");
        assert_string_equal(cJSON_GetArrayItem(command, 2)->valuestring, "/srv/builds/{build}/shop.jar");
        assert_string_equal(cJSON_GetArrayItem(command, 4)->valuestring, "{tag}");
        assert_string_equal(cJSON_GetArrayItem(command, 0)->valuestring, "/usr/bin/java");
        /* the bisection's own fields are not taken from the sides; the cell is B's without its name */
        assert_null(cJSON_GetObjectItem(s.definition, "name"));
        assert_null(cJSON_GetObjectItem(s.definition, "labels"));
        assert_null(cJSON_GetObjectItem(s.definition, "iterations"));
        assert_null(cJSON_GetObjectItem(s.definition, "cells"));
        assert_null(cJSON_GetObjectItem(s.definition, "seed"));
        assert_null(cJSON_GetObjectItem(s.cell, "name"));
        assert_string_equal(cJSON_GetObjectItem(s.cell, "cpus")->valuestring, "2");
        assert_int_equal(cJSON_GetArraySize(s.fields), 2);
        assert_string_equal(cJSON_GetArrayItem(s.fields, 0)->valuestring, "definition.sut.command[2]");
        assert_string_equal(cJSON_GetArrayItem(s.fields, 1)->valuestring, "definition.sut.command[4]");
        definition_sides_done(&s);
        /* without versions: only what differs */
        assert_int_equal(definition_sides_template(c.before, c.after, "B", NULL, &s, &err), 0);
        assert_int_equal(cJSON_GetArraySize(s.fields), 2);
        assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s.definition, "sut"), "command"), 2)->valuestring,
                            "/srv/builds/101/shop.jar");
        definition_sides_done(&s);
        done(&c);
}

static void test_refused(void **state) {
        static const struct {
                const char *before, *after, *first, *last;
                int status;
                const char *field, *message;
        } cases[] = {
                { BEFORE, AFTER, "{\"build\":\"101\",\"tag\":\"1.4.1\"}", "{\"build\":\"104\",\"tag\":\"1.4.9\"}", 400,
                  "versions[3].vars", "the last version must be the after side" },
                { BEFORE, AFTER, "{\"build\":\"999\"}", "{\"build\":\"104\"}", 400, "versions[0].vars", "none of its values occurs" },
                { BEFORE, AFTER, "{\"build\":\"101\",\"tag\":\"1.4.1\"}", "{\"build\":\"104\"}", 400, "versions[3].vars",
                  "has no {tag}" },
                { "{\"load\":{\"rate\":100},\"cells\":[{\"name\":\"B\"}]}", "{\"load\":{\"rate\":200},\"cells\":[{\"name\":\"B\"}]}",
                  NULL, NULL, 422, "definition.load.rate", "versions fill only the strings" },
                { "{\"sut\":{\"env\":{\"X\":\"1\"}},\"cells\":[{\"name\":\"B\"}]}", "{\"sut\":{\"env\":{\"X\":\"2\"}},\"cells\":[{\"name\":\"B\"}]}",
                  NULL, NULL, 422, "definition.sut.env.X", "differs" },
                { "{\"cells\":[{\"name\":\"B\"}]}", "{\"profile\":{\"cpu\":true},\"cells\":[{\"name\":\"B\"}]}", NULL, NULL, 422,
                  "definition.profile", "the after side alone has it" },
                { "{\"cells\":[{\"name\":\"B\",\"cpus\":\"1\"}]}", "{\"cells\":[{\"name\":\"B\",\"cpus\":\"2\"}]}", NULL, NULL, 422,
                  "cell.cpus", "differs" },
                { "{\"cells\":[{\"name\":\"A\"}]}", "{\"cells\":[{\"name\":\"B\"}]}", NULL, NULL, 422, "cell", "before side has no cell" },
                { "{\"cells\":[{\"name\":\"B\",\"vars\":{\"v\":\"1\"}}]}", "{\"cells\":[{\"name\":\"B\",\"vars\":{\"v\":\"2\"}}]}", NULL,
                  NULL, 422, "cell", "templates themselves" },
                { "{\"name\":\"x\",\"cells\":[{\"name\":\"B\"}]}", "{\"name\":\"y\",\"cells\":[{\"name\":\"B\"}]}", NULL, NULL, 422,
                  "change_point", "the same definition" },
                { "{\"sut\":{\"command\":[\"/bin/a\",\"{x}\"]},\"cells\":[{\"name\":\"B\"}]}",
                  "{\"sut\":{\"command\":[\"/bin/a\",\"y\"]},\"cells\":[{\"name\":\"B\"}]}", NULL, NULL, 422,
                  "definition.sut.command[1]", "read as a placeholder" },
                { "{\"sut\":{\"command\":[\"/bin/a\"]},\"cells\":[{\"name\":\"B\"}]}",
                  "{\"sut\":{\"command\":[\"/bin/a\",\"-v\"]},\"cells\":[{\"name\":\"B\"}]}", NULL, NULL, 422,
                  "definition.sut.command", "not as many items" },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct sides_case c;
                load(&c, cases[i].before, cases[i].after, cases[i].first, cases[i].last);
                struct definition_sides s = { .definition = (cJSON *) &s };     /* untouched on failure */
                struct error err = { 0 };
                int status = run(&c, &s, &err);
                if (status != cases[i].status || strcmp(err.field, cases[i].field) != 0 || !strstr(err.message, cases[i].message))
                        fail_msg("case %zu: %d %s: %s", i, status, err.field, err.message);
                assert_ptr_equal(s.definition, &s);
                done(&c);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_template),
                cmocka_unit_test(test_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
