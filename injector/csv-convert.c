/* csv-convert.c: CSV to timeline, from another tool's 4 columns (scheduled_ns,submit_ns,done_ns,
 * status) or from slicelab's own export (the daemon's text/csv, `slicelab timeline`), known by its
 * header line, whose records keep their error, bytes, connection and warmup flag. */
#include "injector/csv-convert.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "injector/output.h"
#include "basic/timeline-format.h"

#define CSV_HEADER "scheduled_ns,submit_ns,done_ns,status"
#define CSV_SLICELAB_HEADER "scheduled_ns,submit_ns,done_ns,status,error,bytes,conn,flags"
#define CSV_SLICELAB_COLUMNS 8

static int csv_fail(struct csv_error *err, uint64_t line, const char *fmt, ...) _printf_(3, 4);
static int csv_fail(struct csv_error *err, uint64_t line, const char *fmt, ...) {
        err->line = line;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* A non-negative decimal int64 ending at ',' or the end of the string. */
static int parse_field(const char **p, int64_t *ret) {
        const char *s = *p;
        if (*s < '0' || *s > '9')
                return -EINVAL;
        uint64_t v = 0;
        for (; *s >= '0' && *s <= '9'; s++) {
                if (v > (uint64_t) (INT64_MAX - 9) / 10)
                        return -ERANGE;
                v = v * 10 + (uint64_t) (*s - '0');
        }
        if (*s == ',')
                s++;
        else if (*s != '\0')
                return -EINVAL;
        *ret = (int64_t) v;
        *p = s;
        return 0;
}

/* columns: 4 (another tool's) or CSV_SLICELAB_COLUMNS (slicelab's export). */
static int parse_line(const char *s, uint64_t lineno, int columns, struct timeline_record *rec,
                      struct csv_error *err) {
        static const char *const names[CSV_SLICELAB_COLUMNS] = { "scheduled_ns", "submit_ns", "done_ns", "status",
                                                                 "error",        "bytes",     "conn",    "flags" };
        int64_t v[CSV_SLICELAB_COLUMNS];
        for (int i = 0; i < columns; i++) {
                if (i > 0 && s[-1] != ',')
                        return csv_fail(err, lineno, "expected %d columns, found %d", columns, i);
                int r = parse_field(&s, &v[i]);
                if (r < 0)
                        return csv_fail(err, lineno, "%s is not a non-negative integer", names[i]);
        }
        if (s[-1] == ',' || *s != '\0')
                return csv_fail(err, lineno, "expected %d columns, found more%s", columns,
                                columns == 4 ? " (slicelab's own export is known by its header line, "
                                               CSV_SLICELAB_HEADER ")" : "");
        if (v[1] < v[0])
                return csv_fail(err, lineno, "submit_ns is before scheduled_ns");
        if (v[2] < v[1])
                return csv_fail(err, lineno, "done_ns is before submit_ns");
        if (v[3] > 999)
                return csv_fail(err, lineno, "status %lld is not an HTTP status", (long long) v[3]);
        *rec = (struct timeline_record){
                .scheduled_ns = v[0],
                .submit_ns = v[1],
                .done_ns = v[2],
                .status = (uint16_t) v[3],
                .error = v[3] == 0 ? TIMELINE_ERR_IO : TIMELINE_ERR_NONE,
        };
        if (columns == 4)
                return 0;
        if (v[4] >= _TIMELINE_ERR_MAX)
                return csv_fail(err, lineno, "error %lld is not a timeline error (0 to %d)", (long long) v[4],
                                _TIMELINE_ERR_MAX - 1);
        if (v[5] > UINT32_MAX || v[6] > UINT32_MAX)
                return csv_fail(err, lineno, "%s is above %lu", v[5] > UINT32_MAX ? "bytes" : "conn",
                                (unsigned long) UINT32_MAX);
        if (v[7] & ~(int64_t) TIMELINE_WARMUP)
                return csv_fail(err, lineno, "flags %lld has bits other than warmup (%u)", (long long) v[7],
                                (unsigned) TIMELINE_WARMUP);
        rec->error = (uint16_t) v[4];
        rec->bytes = (uint32_t) v[5];
        rec->conn = (uint32_t) v[6];
        rec->flags = (uint32_t) v[7];
        return 0;
}

static int compare_records(const void *a, const void *b) {
        const struct timeline_record *x = a, *y = b;
        if (x->scheduled_ns != y->scheduled_ns)
                return x->scheduled_ns < y->scheduled_ns ? -1 : 1;
        if (x->submit_ns != y->submit_ns)
                return x->submit_ns < y->submit_ns ? -1 : 1;
        if (x->done_ns != y->done_ns)
                return x->done_ns < y->done_ns ? -1 : 1;
        return (int) x->status - (int) y->status;
}

/* The output image: header then records, read straight from the CSV into place. */
struct image {
        char *data;
        uint64_t n, cap;
        int columns;    /* 4, or CSV_SLICELAB_COLUMNS when the records carry their own flags */
};

static struct timeline_record *image_records(struct image *im) {
        return (struct timeline_record *) (im->data + sizeof(struct timeline_header));
}

static int image_push(struct image *im, const struct timeline_record *rec) {
        if (im->n == im->cap) {
                if (im->cap >= CSV_MAX_RECORDS)
                        return -EFBIG;
                uint64_t ncap = im->cap ? im->cap * 2 : 4096;
                char *d = realloc(im->data, sizeof(struct timeline_header) + ncap * sizeof *rec);
                if (!d)
                        return -ENOMEM;
                im->data = d;
                im->cap = ncap;
        }
        image_records(im)[im->n++] = *rec;
        return 0;
}

static int read_csv(FILE *f, struct image *im, struct csv_error *err) {
        char line[CSV_MAX_LINE + 2];
        uint64_t lineno = 0;
        bool blank_seen = false;
        while (fgets(line, sizeof line, f)) {
                lineno++;
                size_t len = strlen(line);
                bool complete = len > 0 && line[len - 1] == '\n';
                if (!complete && !feof(f))
                        return csv_fail(err, lineno, "longer than %d bytes", CSV_MAX_LINE);
                line[strcspn(line, "\r\n")] = '\0';
                if (line[0] == '\0') {
                        blank_seen = true;   /* only allowed at the end */
                        continue;
                }
                if (blank_seen)
                        return csv_fail(err, lineno - 1, "empty line");
                if (lineno == 1 && strcmp(line, CSV_HEADER) == 0)
                        continue;
                if (lineno == 1 && strcmp(line, CSV_SLICELAB_HEADER) == 0) {
                        im->columns = CSV_SLICELAB_COLUMNS;
                        continue;
                }
                struct timeline_record rec;
                int r = parse_line(line, lineno, im->columns, &rec, err);
                if (r < 0)
                        return r;
                r = image_push(im, &rec);
                if (r == -EFBIG)
                        return csv_fail(err, lineno, "more than %llu records",
                                        (unsigned long long) CSV_MAX_RECORDS);
                if (r < 0)
                        return r;
        }
        if (ferror(f))
                return -EIO;
        return 0;
}

/* The phases of the sorted records: with 4 columns those within warmup_ns of the first are the
 * warmup; slicelab's export says so in each record's flags, and its measure phase starts at its
 * first record without the flag (the daemon's own start may be up to one request earlier). */
static int mark_phases(struct image *im, int64_t warmup_ns, struct timeline_header *ret,
                       struct csv_error *err) {
        struct timeline_record *recs = image_records(im);
        int64_t start = im->n > 0 ? recs[0].scheduled_ns : 0;
        int64_t measure_start = start + warmup_ns;
        if (im->columns == 4) {
                for (uint64_t i = 0; i < im->n; i++)
                        if (recs[i].scheduled_ns < measure_start)
                                recs[i].flags |= TIMELINE_WARMUP;
                *ret = timeline_header_make(start, measure_start);
                return 0;
        }
        if (warmup_ns > 0)
                return csv_fail(err, 0, "--warmup applies to the 4-column format: slicelab's export "
                                        "carries each record's warmup flag");
        uint64_t first_measured = 0;
        while (first_measured < im->n && (recs[first_measured].flags & TIMELINE_WARMUP))
                first_measured++;
        measure_start = first_measured < im->n ? recs[first_measured].scheduled_ns
                                               : im->n > 0 ? recs[im->n - 1].scheduled_ns + 1 : start;
        for (uint64_t i = first_measured; i < im->n; i++)
                if (recs[i].flags & TIMELINE_WARMUP)
                        return csv_fail(err, 0, "a warmup record (scheduled_ns %lld) comes after the measure "
                                                "phase began (%lld)",
                                        (long long) recs[i].scheduled_ns, (long long) measure_start);
        *ret = timeline_header_make(start, measure_start);
        return 0;
}

int csv_convert(const char *in_path, const char *out_path, int64_t warmup_ns, struct csv_error *err) {
        *err = (struct csv_error){ .line = 0 };
        _cleanup_fclose_ FILE *f = fopen(in_path, "re");
        if (!f)
                return negative_errno();
        struct image im = { .data = NULL, .columns = 4 };
        int r = read_csv(f, &im, err);
        if (r >= 0 && !im.data)   /* no records: still a valid, empty timeline */
                im.data = malloc(sizeof(struct timeline_header));
        if (r >= 0 && !im.data)
                r = -ENOMEM;
        struct timeline_header h;
        if (r >= 0) {
                qsort(image_records(&im), im.n, sizeof(struct timeline_record), compare_records);
                r = mark_phases(&im, warmup_ns, &h, err);
        }
        if (r >= 0) {
                memcpy(im.data, &h, sizeof h);
                r = output_replace_file(out_path, im.data, sizeof h + im.n * sizeof(struct timeline_record), 0644);
        }
        free(im.data);
        return r;
}
