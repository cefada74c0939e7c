/* Work.java: the cost of one /work request, CPU time and garbage.
 *
 * CPU is measured with the calling thread's own CPU clock, not wall time: under a CFS quota a
 * throttled thread would otherwise "burn" its budget while descheduled, and the request would
 * do less work exactly when the experiment wants to see the cost of throttling. */
package slicelab.sut;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

final class Work {
    /* Iterations between two reads of the thread CPU clock: about 10 us of arithmetic on a
     * current CPU, so the clock read (a syscall) stays a small fraction of the work. */
    private static final int SPIN_CHUNK = 4096;
    private static final int CHUNK_BYTES = 1024;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /* Where allocations escape to, so escape analysis cannot turn the garbage into nothing. */
    static volatile Object sink;

    static final class Result {
        final long cpuNs;
        final long check;

        Result(long cpuNs, long check) {
            this.cpuNs = cpuNs;
            this.check = check;
        }
    }

    private Work() {
    }

    static Result run(long cpuUs, int allocKb) {
        long t0 = THREADS.getCurrentThreadCpuTime();
        long check = allocate(allocKb);
        check ^= spin(t0, cpuUs * 1000);
        return new Result(THREADS.getCurrentThreadCpuTime() - t0, check);
    }

    /* allocKb chunks of 1 KiB, all alive until the request ends (like a request's working set)
     * and garbage right after. */
    private static long allocate(int allocKb) {
        if (allocKb == 0)
            return 0;
        byte[][] chunks = new byte[allocKb][];
        for (int i = 0; i < allocKb; i++) {
            byte[] c = new byte[CHUNK_BYTES];
            c[i % CHUNK_BYTES] = (byte) i;
            chunks[i] = c;
        }
        sink = chunks;
        long s = 0;
        for (int i = 0; i < allocKb; i++)
            s += chunks[i][i % CHUNK_BYTES];
        return s;
    }

    /* xorshift until the thread has used budgetNs of CPU since t0. */
    private static long spin(long t0, long budgetNs) {
        long x = 0x9E3779B97F4A7C15L ^ t0;
        while (THREADS.getCurrentThreadCpuTime() - t0 < budgetNs) {
            for (int i = 0; i < SPIN_CHUNK; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
        }
        return x;
    }
}
