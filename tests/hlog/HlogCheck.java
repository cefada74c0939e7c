/* HlogCheck: reads an interval log with the reference implementation (Debian's libhdrhistogram-java)
 * and checks it against the exact values of the same timeline, given as the CSV the daemon exports
 * (scheduled_ns,submit_ns,done_ns,status,error,bytes,conn,flags).
 *   java HlogCheck HLOG CSV MEASURE_START_NS INTERVAL_MS
 * Per tag and interval: the total count equals the CSV's, and p50, p99 and max are the exact
 * values to within the histogram's 3 significant digits (the same bucket, hence at most 0.1%
 * apart). The exact percentile is the nearest rank, ceil(n * p) as the reference computes it (and as
 * slicelab's summary does), so the exact value is the one the histogram approximates. Exit 0, or 1 with what differs. */
import java.io.BufferedReader;
import java.io.File;
import java.io.FileReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

public class HlogCheck {
    static final String[] TAGS = { "scheduled", "submit" };
    static int failures = 0;

    static void fail(String what) {
        System.err.println("FAIL: " + what);
        failures++;
    }

    /* tag -> interval -> values in microseconds, by the rule of basic/latency.h. */
    static Map<String, Map<Long, List<Long>>> exact(String csv, long measureStart, long intervalNs) throws Exception {
        Map<String, Map<Long, List<Long>>> m = new HashMap<>();
        for (String t : TAGS)
            m.put(t, new HashMap<>());
        try (BufferedReader r = new BufferedReader(new FileReader(csv))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isEmpty() || line.startsWith("scheduled_ns"))
                    continue;
                String[] f = line.split(",");
                long sched = Long.parseLong(f[0]), submit = Long.parseLong(f[1]), done = Long.parseLong(f[2]);
                int status = Integer.parseInt(f[3]);
                long flags = Long.parseLong(f[7]);
                if ((flags & 1) != 0 || sched < measureStart || status == 0)
                    continue;
                long interval = (sched - measureStart) / intervalNs;
                m.get("scheduled").computeIfAbsent(interval, k -> new ArrayList<>()).add((done - sched + 500) / 1000);
                m.get("submit").computeIfAbsent(interval, k -> new ArrayList<>()).add((done - submit + 500) / 1000);
            }
        }
        return m;
    }

    static long atRank(long[] sorted, double p) {
        long rank = Math.max(1, (long) Math.ceil((p * 100.0 / 100.0) * sorted.length));
        return sorted[(int) rank - 1];
    }

    static void compare(Histogram h, String what, String name, long hdr, long exact) {
        boolean same = h.valuesAreEquivalent(hdr, exact) && Math.abs(hdr - exact) <= exact / 1000.0;
        if (!same)
            fail(what + " " + name + ": histogram " + hdr + " us, exact " + exact + " us");
    }

    public static void main(String[] args) throws Exception {
        String hlog = args[0], csv = args[1];
        long measureStart = Long.parseLong(args[2]);
        long intervalMs = Long.parseLong(args[3]);
        Map<String, Map<Long, List<Long>>> want = exact(csv, measureStart, intervalMs * 1000000L);
        HistogramLogReader reader = new HistogramLogReader(new File(hlog));
        Map<String, TreeSet<Long>> seen = new HashMap<>();
        int lines = 0;
        EncodableHistogram e;
        while ((e = reader.nextIntervalHistogram()) != null) {
            lines++;
            Histogram h = (Histogram) e;
            String tag = h.getTag();
            double fromBase = h.getStartTimeStamp() / 1000.0 - reader.getStartTimeSec();
            long interval = Math.round(fromBase * 1000.0 / intervalMs);
            String what = "tag " + tag + " interval " + interval;
            if (!want.containsKey(tag)) {
                fail(what + ": unknown tag");
                continue;
            }
            if (h.getEndTimeStamp() - h.getStartTimeStamp() != intervalMs)
                fail(what + ": length " + (h.getEndTimeStamp() - h.getStartTimeStamp()) + " ms");
            if (!seen.computeIfAbsent(tag, k -> new TreeSet<>()).add(interval))
                fail(what + ": twice");
            List<Long> values = want.get(tag).getOrDefault(interval, new ArrayList<>());
            if (h.getTotalCount() != values.size()) {
                fail(what + ": count " + h.getTotalCount() + ", exact " + values.size());
                continue;
            }
            if (values.isEmpty())
                continue;
            long[] v = values.stream().mapToLong(Long::longValue).toArray();
            Arrays.sort(v);
            compare(h, what, "p50", h.getValueAtPercentile(50.0), atRank(v, 0.50));
            compare(h, what, "p99", h.getValueAtPercentile(99.0), atRank(v, 0.99));
            compare(h, what, "max", h.getMaxValue(), v[v.length - 1]);
            System.out.printf("%s %d: count %d p50 %d/%d p99 %d/%d max %d/%d us (histogram/exact)%n", tag, interval,
                              h.getTotalCount(), h.getValueAtPercentile(50.0), atRank(v, 0.50),
                              h.getValueAtPercentile(99.0), atRank(v, 0.99), h.getMaxValue(), v[v.length - 1]);
        }
        for (String tag : TAGS)
            for (Long interval : want.get(tag).keySet())
                if (!seen.getOrDefault(tag, new TreeSet<>()).contains(interval))
                    fail("tag " + tag + " interval " + interval + ": missing from the log");
        if (lines == 0)
            fail("no interval in the log");
        System.out.println(lines + " interval histograms read, " + failures + " failures");
        System.exit(failures == 0 ? 0 : 1);
    }
}
