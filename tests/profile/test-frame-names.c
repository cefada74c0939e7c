/* test-frame-names.c: profile/frame-names: the generated parts of HotSpot's names taken out
 * (hidden-class addresses, lambda and accessor counters, proxies), everything else as it was,
 * and never a longer name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "basic/macro.h"
#include "profile/frame-names.h"

static void check(const char *in, const char *want) {
        char out[512];
        size_t n = frame_name_normalize(in, strlen(in), out);
        out[n] = 0;
        if (strcmp(out, want) != 0)
                print_message("%s -> %s, want %s\n", in, out, want);
        assert_string_equal(out, want);
        assert_true(n <= strlen(in));
}

static void test_generated_names(void **state) {
        (void) state;
        check("slicelab.sut.Main$$Lambda$7/0x00007ff3e0007220.handle(com.sun.net.httpserver.HttpExchange)",
              "slicelab.sut.Main$$Lambda.handle(com.sun.net.httpserver.HttpExchange)");
        check("slicelab.sut.Main$$Lambda$12/0x0000000800c03000.handle", "slicelab.sut.Main$$Lambda.handle");
        check("java.lang.invoke.LambdaForm$MH/0x0000000800c0c400.invoke", "java.lang.invoke.LambdaForm$MH.invoke");
        check("java.lang.invoke.LambdaForm$DMH/0x0000000800c0d000.invokeStatic",
              "java.lang.invoke.LambdaForm$DMH.invokeStatic");
        check("jdk.internal.reflect.GeneratedMethodAccessor12.invoke", "jdk.internal.reflect.GeneratedMethodAccessor.invoke");
        check("jdk.internal.reflect.GeneratedConstructorAccessor3.newInstance",
              "jdk.internal.reflect.GeneratedConstructorAccessor.newInstance");
        check("jdk.internal.reflect.GeneratedSerializationConstructorAccessor44.newInstance",
              "jdk.internal.reflect.GeneratedSerializationConstructorAccessor.newInstance");
        check("jdk.proxy2.$Proxy12.run", "jdk.proxy2.$Proxy.run");
        /* a lambda's frame inside a whole stack's line */
        check("app;java.lang.Thread.run;Main$$Lambda$3/0x1.run;Work.spin", "app;java.lang.Thread.run;Main$$Lambda.run;Work.spin");
}

static void test_other_names_unchanged(void **state) {
        (void) state;
        const char *same[] = {
                "slicelab.sut.Work.spin(long)",
                "Interpreter",
                "[unknown]",
                "__x64_sys_epoll_wait",
                "java.util.HashMap$Node.<init>",
                "Outer$Inner$7.run",            /* an anonymous class: a name javac gave, the same in every run */
                "a/0x",                         /* no hex digits after it */
                "f/0xzz",
                "LambdaHolder$$Lambda",         /* no counter */
                "GeneratedMethodAccessor.invoke",
                "$Proxy.run",
                "",
        };
        for (size_t i = 0; i < ELEMENTSOF(same); i++)
                check(same[i], same[i]);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_generated_names),
                cmocka_unit_test(test_other_names_unchanged),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
