/* timeline-csv.c: a timeline file as the CSV the daemon's timeline export gives (the same
 * columns), with the measure start printed on stdout, for checks that compare against the exact
 * records.   timeline-csv TIMELINE CSV_OUT */
#include <inttypes.h>
#include <stdio.h>

#include "basic/timeline-format.h"

int main(int argc, char **argv) {
        if (argc != 3) {
                fprintf(stderr, "usage: timeline-csv TIMELINE CSV_OUT\n");
                return 2;
        }
        FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[2], "w");
        if (!in || !out) {
                perror("timeline-csv");
                return 1;
        }
        struct timeline_header h;
        if (fread(&h, sizeof h, 1, in) != 1) {
                fprintf(stderr, "timeline-csv: no header\n");
                return 1;
        }
        fprintf(out, "scheduled_ns,submit_ns,done_ns,status,error,bytes,conn,flags\n");
        struct timeline_record r;
        while (fread(&r, sizeof r, 1, in) == 1)
                fprintf(out, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%u,%u,%u,%u,%u\n", r.scheduled_ns, r.submit_ns,
                        r.done_ns, r.status, r.error, r.bytes, r.conn, r.flags);
        printf("%" PRId64 "\n", h.measure_start_ns);
        fclose(in);
        return fclose(out) == 0 ? 0 : 1;
}
