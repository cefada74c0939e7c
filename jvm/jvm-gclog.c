/* jvm-gclog.c: HotSpot's unified GC log as GC pauses and safepoints (formats in jvm-gclog.h).
 *
 * The parser is a cursor over one line: every step either consumes what it expects or fails
 * without moving, so a hostile or unfamiliar line costs one pass and is then ignored. */
#include "jvm/jvm-gclog.h"

#include <errno.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/time-util.h"
#include "jvm/jvm-collectors.h"
#include "jvm/jvm-lines.h"

/* Bounds on what a number in the log may say; beyond them the line is not HotSpot's. */
#define MAX_DURATION_NS (NSEC_PER_SEC * 86400 * 365)
#define MAX_HEAP_BYTES (INT64_C(1) << 60)

struct cursor {
        const char *p, *end;
};

static bool at_end(const struct cursor *c) {
        return c->p >= c->end;
}

static bool skip_literal(struct cursor *c, const char *lit) {
        size_t n = strlen(lit);
        if ((size_t) (c->end - c->p) < n || memcmp(c->p, lit, n) != 0)
                return false;
        c->p += n;
        return true;
}

/* Decimal digits into [0, max]; at least one digit. */
static bool parse_uint(struct cursor *c, int64_t max, int64_t *ret) {
        const char *p = c->p;
        int64_t v = 0;
        if (p >= c->end || *p < '0' || *p > '9')
                return false;
        for (; p < c->end && *p >= '0' && *p <= '9'; p++) {
                int d = *p - '0';
                if (v > (max - d) / 10)
                        return false;
                v = v * 10 + d;
        }
        c->p = p;
        *ret = v;
        return true;
}

/* "12.345ms" (HotSpot prints 3 decimals; more are accepted and truncated to ns) -> ns. */
static bool parse_ms(struct cursor *c, int64_t *ret) {
        struct cursor t = *c;
        int64_t whole, ns = 0, scale = 100000;
        if (!parse_uint(&t, MAX_DURATION_NS / 1000000, &whole))
                return false;
        if (skip_literal(&t, ".")) {
                if (at_end(&t) || *t.p < '0' || *t.p > '9')
                        return false;
                for (; t.p < t.end && *t.p >= '0' && *t.p <= '9'; t.p++) {
                        ns += (*t.p - '0') * scale;
                        scale /= 10;
                }
        }
        if (!skip_literal(&t, "ms"))
                return false;
        *c = t;
        *ret = whole * 1000000 + ns;
        return true;
}

/* "123M" -> bytes; HotSpot's units are B, K, M, G. */
static bool parse_size(struct cursor *c, int64_t *ret) {
        struct cursor t = *c;
        int64_t v, unit;
        if (!parse_uint(&t, MAX_HEAP_BYTES, &v) || at_end(&t))
                return false;
        switch (*t.p) {
        case 'B': unit = 1; break;
        case 'K': unit = INT64_C(1) << 10; break;
        case 'M': unit = INT64_C(1) << 20; break;
        case 'G': unit = INT64_C(1) << 30; break;
        default: return false;
        }
        if (v > MAX_HEAP_BYTES / unit)
                return false;
        t.p++;
        *c = t;
        *ret = v * unit;
        return true;
}

/* "[" <digits> "ns]" */
static bool parse_nanos_decoration(struct cursor *c, int64_t *ret) {
        struct cursor t = *c;
        if (!skip_literal(&t, "[") || !parse_uint(&t, INT64_MAX, ret) || !skip_literal(&t, "ns]"))
                return false;
        *c = t;
        return true;
}

/* "[" text "]": *ret spans the text with its right padding removed. */
static bool parse_bracket(struct cursor *c, struct cursor *ret) {
        if (!skip_literal(c, "["))
                return false;
        const char *close = memchr(c->p, ']', (size_t) (c->end - c->p));
        if (!close)
                return false;
        const char *e = close;
        while (e > c->p && e[-1] == ' ')
                e--;
        ret->p = c->p;
        ret->end = e;
        c->p = close + 1;
        return true;
}

static bool span_equals(const struct cursor *s, const char *lit) {
        size_t n = strlen(lit);
        return (size_t) (s->end - s->p) == n && memcmp(s->p, lit, n) == 0;
}

static void event_init(struct jvm_gc_event *ev, const struct jvm_gclog_parser *p, enum jvm_gc_event_kind kind) {
        *ev = (struct jvm_gc_event) {
                .kind = kind,
                .gc_id = -1,
                .heap_before = -1,
                .heap_after = -1,
                .heap_capacity = -1,
                .collector = p->info.collector,
        };
}

/* "GC(N) Pause <what> [B->A(C)] <ms>ms", read from both ends: the duration is the last token,
 * the heap figures (when present) the one before, and everything between is <what>. */
static bool parse_pause(const struct jvm_gclog_parser *p, struct cursor msg, int64_t logged_ns,
                        struct jvm_gc_event *ret) {
        int64_t gc_id, duration, before = -1, after = -1, capacity = -1;

        if (!skip_literal(&msg, "GC(") || !parse_uint(&msg, INT64_MAX, &gc_id) || !skip_literal(&msg, ") "))
                return false;
        const char *what = msg.p;
        if (!skip_literal(&msg, "Pause "))
                return false;

        const char *last = msg.end;
        while (last > msg.p && last[-1] != ' ')
                last--;
        struct cursor tok = { last, msg.end };
        if (last == msg.p || !parse_ms(&tok, &duration) || !at_end(&tok))
                return false;
        const char *what_end = last - 1;

        const char *prev = what_end;
        while (prev > msg.p && prev[-1] != ' ')
                prev--;
        tok = (struct cursor) { prev, what_end };
        if (prev > msg.p && parse_size(&tok, &before) && skip_literal(&tok, "->") && parse_size(&tok, &after) &&
            skip_literal(&tok, "(") && parse_size(&tok, &capacity) && skip_literal(&tok, ")") && at_end(&tok))
                what_end = prev - 1;
        else
                before = after = capacity = -1;

        if (duration > logged_ns)
                return false;
        event_init(ret, p, JVM_GC_PAUSE);
        ret->start_ns = logged_ns - duration;
        ret->duration_ns = duration;
        ret->gc_id = gc_id;
        ret->heap_before = before;
        ret->heap_after = after;
        ret->heap_capacity = capacity;
        jvm_copy_printable(ret->cause, sizeof ret->cause, what, (size_t) (what_end - what));
        return true;
}

/* Safepoint "<op>", Time since last: N ns, Reaching safepoint: N ns, Cleanup: N ns,
 * At safepoint: N ns, Total: N ns */
static bool parse_safepoint(const struct jvm_gclog_parser *p, struct cursor msg, int64_t logged_ns,
                            struct jvm_gc_event *ret) {
        int64_t total;

        if (!skip_literal(&msg, "Safepoint \""))
                return false;
        const char *op = msg.p;
        const char *quote = memchr(msg.p, '"', (size_t) (msg.end - msg.p));
        if (!quote)
                return false;
        size_t op_len = (size_t) (quote - op);

        static const char total_key[] = ", Total: ";
        const char *t = NULL;
        for (const char *s = quote; (s = memchr(s, ',', (size_t) (msg.end - s))); s++)
                if ((size_t) (msg.end - s) >= sizeof total_key - 1 && memcmp(s, total_key, sizeof total_key - 1) == 0)
                        t = s;   /* the last one: an operation name cannot fake it */
        if (!t)
                return false;
        struct cursor tok = { t + sizeof total_key - 1, msg.end };
        if (!parse_uint(&tok, MAX_DURATION_NS, &total) || !skip_literal(&tok, " ns") || !at_end(&tok))
                return false;
        if (total > logged_ns)
                return false;

        event_init(ret, p, JVM_GC_SAFEPOINT);
        ret->start_ns = logged_ns - total;
        ret->duration_ns = total;
        jvm_copy_printable(ret->cause, sizeof ret->cause, op, op_len);
        return true;
}

static void parse_init(struct jvm_gclog_parser *p, struct cursor msg) {
        struct cursor t = msg;
        int64_t total, avail;

        if (skip_literal(&t, "Version: ")) {
                const char *e = t.p;
                while (e < t.end && *e != ' ')
                        e++;
                if (e > t.p)
                        jvm_copy_printable(p->info.version, sizeof p->info.version, t.p, (size_t) (e - t.p));
                return;
        }
        if (skip_literal(&t, "CPUs: ") && parse_uint(&t, INT32_MAX, &total) && skip_literal(&t, " total, ") &&
            parse_uint(&t, INT32_MAX, &avail) && skip_literal(&t, " available") && at_end(&t)) {
                p->info.has_cpus = true;
                p->info.cpus_total = total;
                p->info.cpus_available = avail;
        }
}

void jvm_gclog_parser_init(struct jvm_gclog_parser *p) {
        *p = (struct jvm_gclog_parser) { .info.collector = NULL };
}

int jvm_gclog_parse_line(struct jvm_gclog_parser *p, const char *line, size_t len, struct jvm_gc_event *ret) {
        struct cursor c = { line, line + len }, level, tags;
        int64_t timenanos, uptimenanos;

        if (!parse_nanos_decoration(&c, &timenanos) || !parse_nanos_decoration(&c, &uptimenanos) ||
            !parse_bracket(&c, &level) || !parse_bracket(&c, &tags) || !skip_literal(&c, " ")) {
                p->skipped++;
                return 0;
        }
        if (!span_equals(&level, "info"))
                return 0;

        if (span_equals(&tags, "gc")) {
                struct cursor what = c;
                if (skip_literal(&what, "Using ")) {
                        const char *name = jvm_collector_by_log_name(what.p, (size_t) (what.end - what.p));
                        if (name)
                                p->info.collector = name;
                        return 0;
                }
                return parse_pause(p, c, timenanos, ret) ? 1 : 0;
        }
        /* ZGC reports its pauses as phases of a concurrent cycle; in other collectors
         * gc,phases lines are parts of a pause already reported under [gc]. */
        if (span_equals(&tags, "gc,phases") && p->info.collector && strcmp(p->info.collector, "ZGC") == 0)
                return parse_pause(p, c, timenanos, ret) ? 1 : 0;
        if (span_equals(&tags, "safepoint"))
                return parse_safepoint(p, c, timenanos, ret) ? 1 : 0;
        if (span_equals(&tags, "gc,init"))
                parse_init(p, c);
        return 0;
}

int jvm_gclog_parse_file(FILE *f, struct jvm_gclog_parser *p, jvm_gc_event_handler_t handler, void *userdata) {
        char line[JVM_LINE_MAX + 1];
        size_t len;
        int r;

        while ((r = jvm_next_line(f, line, sizeof line, &len, &p->lines, &p->skipped)) > 0) {
                struct jvm_gc_event ev;
                if (jvm_gclog_parse_line(p, line, len, &ev) > 0) {
                        r = handler(&ev, userdata);
                        if (r < 0)
                                return r;
                }
        }
        return r;
}

struct load_state {
        struct jvm_gclog *log;
        size_t allocated, max_events;
};

static int load_event(const struct jvm_gc_event *ev, void *userdata) {
        struct load_state *s = userdata;
        struct jvm_gclog *log = s->log;

        if (log->n_events >= s->max_events) {
                log->truncated = true;
                return 0;
        }
        if (log->n_events == s->allocated) {
                size_t n = s->allocated ? s->allocated * 2 : 256;
                n = MIN(n, s->max_events);
                struct jvm_gc_event *e = reallocarray(log->events, n, sizeof *e);
                if (!e)
                        return -ENOMEM;
                log->events = e;
                s->allocated = n;
        }
        log->events[log->n_events++] = *ev;
        return 0;
}

void jvm_gclog_free(struct jvm_gclog *log) {
        if (!log)
                return;
        free(log->events);
        free(log);
}

int jvm_gclog_load_streams(FILE *const *files, size_t n, size_t max_events, struct jvm_gclog **ret) {
        _cleanup_(jvm_gclog_freep) struct jvm_gclog *log = calloc(1, sizeof *log);
        if (!log)
                return -ENOMEM;
        /* One parser across the files: a rotated log is one stream cut in pieces, its header
         * (the collector, the heap) in the first piece only. */
        struct jvm_gclog_parser p;
        jvm_gclog_parser_init(&p);
        struct load_state s = { .log = log, .max_events = max_events };
        for (size_t i = 0; i < n; i++) {
                int r = jvm_gclog_parse_file(files[i], &p, load_event, &s);
                if (r < 0)
                        return r;
        }
        log->info = p.info;
        log->lines = p.lines;
        log->skipped = p.skipped;
        *ret = TAKE_PTR(log);
        return 0;
}

#define GCLOG_FILES_MAX 16

int jvm_gclog_load_files(const char *const *paths, size_t n, size_t max_events, struct jvm_gclog **ret) {
        FILE *files[GCLOG_FILES_MAX] = { 0 };
        int r = 0;
        if (n > GCLOG_FILES_MAX)
                return -E2BIG;
        for (size_t i = 0; i < n && r >= 0; i++)
                if (!(files[i] = fopen(paths[i], "re")))
                        r = negative_errno();
        if (r >= 0)
                r = jvm_gclog_load_streams(files, n, max_events, ret);
        for (size_t i = 0; i < n; i++)
                if (files[i])
                        fclose(files[i]);
        return r;
}

int jvm_gclog_load(const char *path, size_t max_events, struct jvm_gclog **ret) {
        return jvm_gclog_load_files(&path, 1, max_events, ret);
}

static int cmp_i64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return (x > y) - (x < y);
}

int jvm_gc_summarize(const struct jvm_gc_event *events, size_t n, int64_t from_ns, int64_t to_ns,
                     struct jvm_gc_summary *ret) {
        struct jvm_gc_summary s = { 0 };
        size_t npause = 0;

        if (from_ns > to_ns || (n > 0 && !events))
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (events[i].kind == JVM_GC_PAUSE && events[i].start_ns >= from_ns && events[i].start_ns < to_ns)
                        npause++;
        _cleanup_free_ int64_t *durations = NULL;
        if (npause > 0) {
                durations = malloc(npause * sizeof *durations);
                if (!durations)
                        return -ENOMEM;
        }

        for (size_t i = 0; i < n; i++) {
                const struct jvm_gc_event *e = &events[i];
                if (e->start_ns < from_ns || e->start_ns >= to_ns)
                        continue;
                if (e->kind == JVM_GC_PAUSE) {
                        durations[s.pauses++] = e->duration_ns;
                        s.pause_total_ns += e->duration_ns;
                        s.pause_max_ns = MAX(s.pause_max_ns, e->duration_ns);
                } else {
                        s.safepoints++;
                        s.safepoint_total_ns += e->duration_ns;
                }
        }
        if (s.pauses > 0) {
                qsort(durations, s.pauses, sizeof *durations, cmp_i64);
                /* nearest rank: the smallest value with at least 99% of the pauses at or below it */
                size_t rank = (size_t) ((s.pauses * 99 + 99) / 100);
                s.pause_p99_ns = durations[rank - 1];
        }
        *ret = s;
        return 0;
}

static double ns_to_ms(int64_t ns) {
        return (double) ns / 1e6;
}

cJSON *jvm_gc_summary_to_json(const struct jvm_gc_summary *s) {
        cJSON *o = cJSON_CreateObject();
        bool any = s->pauses > 0;
        cJSON_AddNumberToObject(o, "pauses", (double) s->pauses);
        cJSON_AddNumberToObject(o, "pause_total_ms", ns_to_ms(s->pause_total_ns));
        json_add_number_or_null(o, "pause_max_ms", any, ns_to_ms(s->pause_max_ns));
        json_add_number_or_null(o, "pause_p99_ms", any, ns_to_ms(s->pause_p99_ns));
        cJSON_AddNumberToObject(o, "safepoint_total_ms", ns_to_ms(s->safepoint_total_ns));
        return o;
}

const char *jvm_gc_event_kind_to_string(enum jvm_gc_event_kind k) {
        return k == JVM_GC_PAUSE ? "pause" : "safepoint";
}
