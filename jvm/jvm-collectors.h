/* jvm-collectors.h: HotSpot's garbage collectors under the one name slicelab reports ("G1GC"),
 * found from either place a run shows which one the JVM chose: the -XX:+UseG1GC flag in
 * PrintFlagsFinal, or the "Using G1" line of the unified GC log. */
#pragma once

#include <stddef.h>

/* The collector whose selecting flag is s[0..n) ("UseG1GC"), or NULL. */
const char *jvm_collector_by_flag(const char *s, size_t n);

/* The collector the GC log's "Using <what>" names in s[0..n) ("G1"), or NULL. */
const char *jvm_collector_by_log_name(const char *s, size_t n);
