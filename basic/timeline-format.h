/* timeline-format.h: the on-disk per-request timeline (runs/<id>/timeline.bin), shared by the
 * injector that writes it and the daemon that ingests and serves it. Little-endian, fixed size;
 * the contract is "Timeline and clocks" in the design. All times are CLOCK_MONOTONIC ns. */
#pragma once

#include <assert.h>
#include <stdint.h>

#define TIMELINE_MAGIC "SLTL"
#define TIMELINE_VERSION 1

struct timeline_header {
        char magic[4];              /* "SLTL" */
        uint16_t version;           /* TIMELINE_VERSION */
        uint16_t record_size;       /* sizeof(struct timeline_record) */
        int64_t measure_start_ns;   /* start of the measure phase (end of warmup) */
        int64_t start_ns;           /* t0 of the schedule: start of warmup */
        uint32_t flags;             /* reserved, 0 */
        uint32_t reserved;
};

enum timeline_record_flags {
        TIMELINE_WARMUP = 1u << 0,
        /* bits 8-15: the load host that sent the request, as its index in load.hosts + 1; 0 for
         * this host's injector (a run spread over peers: basic/timeline-merge.h) */
        TIMELINE_HOST_SHIFT = 8,
        TIMELINE_HOST_MASK = 0xffu << TIMELINE_HOST_SHIFT,
};

/* The flags that mark a record of load host index (0-based) in a merged timeline. */
static inline uint32_t timeline_host_flags(unsigned index) {
        return ((index + 1u) << TIMELINE_HOST_SHIFT) & TIMELINE_HOST_MASK;
}
/* The load host's index + 1 of a record, 0 = this host. */
static inline unsigned timeline_record_host(uint32_t flags) {
        return (flags & TIMELINE_HOST_MASK) >> TIMELINE_HOST_SHIFT;
}

/* error: why a request has status 0 (or, for TIMELINE_ERR_NONE, none). */
enum timeline_error {
        TIMELINE_ERR_NONE = 0,
        TIMELINE_ERR_TIMEOUT = 1,       /* no complete answer within --timeout */
        TIMELINE_ERR_CONNECT = 2,       /* connect() failed: refused, unreachable */
        TIMELINE_ERR_RESET = 3,         /* connection reset or closed mid-response */
        TIMELINE_ERR_PARSE = 4,         /* the answer was not HTTP/1.1 we understand */
        TIMELINE_ERR_IO = 5,            /* any other socket error */
        TIMELINE_ERR_NOT_SENT = 6,      /* still queued when the run ended */
        _TIMELINE_ERR_MAX,
};

struct timeline_record {
        int64_t scheduled_ns;   /* when the schedule said this request is due */
        int64_t submit_ns;      /* when its first byte was written */
        int64_t done_ns;        /* when its answer's last bytes reached the host (slicelab-inject: the
                                 * kernel's receive stamp), or when the error was seen */
        uint16_t status;        /* HTTP status; 0 = transport error */
        uint16_t error;         /* enum timeline_error */
        uint32_t bytes;         /* response bytes, headers included */
        uint32_t conn;          /* connection index */
        uint32_t flags;         /* enum timeline_record_flags */
};

static_assert(sizeof(struct timeline_header) == 32, "timeline header is 32 bytes");
static_assert(sizeof(struct timeline_record) == 40, "timeline record is 40 bytes");
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the timeline is written in host order");

static inline struct timeline_header timeline_header_make(int64_t start_ns, int64_t measure_start_ns) {
        return (struct timeline_header){
                .magic = { 'S', 'L', 'T', 'L' },   /* TIMELINE_MAGIC */
                .version = TIMELINE_VERSION,
                .record_size = sizeof(struct timeline_record),
                .measure_start_ns = measure_start_ns,
                .start_ns = start_ns,
        };
}

static inline const char *timeline_error_name(unsigned e) {
        static const char *const names[] = {
                [TIMELINE_ERR_NONE] = "none",       [TIMELINE_ERR_TIMEOUT] = "timeout",
                [TIMELINE_ERR_CONNECT] = "connect", [TIMELINE_ERR_RESET] = "reset",
                [TIMELINE_ERR_PARSE] = "parse",     [TIMELINE_ERR_IO] = "io",
                [TIMELINE_ERR_NOT_SENT] = "not_sent",
        };
        return e < _TIMELINE_ERR_MAX ? names[e] : "unknown";
}
