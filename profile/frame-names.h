/* frame-names.h: one name for a JVM-generated frame across JVMs. HotSpot names the classes it
 * makes at run time by address or by a counter that depends on the order they were made in
 * ("Main$$Lambda$7/0x00007ff3e0007220.handle", "LambdaForm$MH/0x0000000800c0c400.invoke",
 * "GeneratedMethodAccessor12.invoke", "jdk.proxy2.$Proxy12.run"), so one handler would be a
 * different frame in every run, each in one run only, and its shares across runs would be
 * wrong. The fold takes every name through here before it is kept. */
#pragma once

#include <stddef.h>

/* in[0, len) with the generated parts taken out, written to out (at most len bytes: the result
 * is never longer); its length. In order, left to right:
 * - a hidden class's address, "/0x" and hex digits after a name: dropped;
 * - a lambda's counter, "$$Lambda$" and digits: "$$Lambda" (the lambdas of one class that
 *   implement the same method then share a frame);
 * - the counter after "GeneratedMethodAccessor", "GeneratedConstructorAccessor",
 *   "GeneratedSerializationConstructorAccessor" and "$Proxy": dropped.
 * Everything else is copied as it is. */
size_t frame_name_normalize(const char *in, size_t len, char *out);
