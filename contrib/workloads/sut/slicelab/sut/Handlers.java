/* Handlers.java: the HTTP endpoints of slicelab-sut.
 *
 *   GET  /health                       200 once the server accepts requests
 *   GET  /work?cpu_us=N&alloc_kb=N     burn N us of this thread's CPU time and allocate N KiB of
 *                                      short-lived garbage; answers a small JSON body
 *   POST /gc                           System.gc(), answers when it returned
 * Every parameter is bounded; anything malformed is a 400 with a JSON error, never a crash. */
package slicelab.sut;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

final class Handlers {
    /* Defaults when a parameter is absent: the values of the design's example request, so a bare
     * GET /work is a realistic request rather than a no-op. */
    static final long DEFAULT_CPU_US = 200;
    static final long DEFAULT_ALLOC_KB = 64;
    /* One second of CPU and 64 MiB per request are far beyond any sane benchmark request; above
     * that a typo would turn a load test into a denial of service on the SUT itself. */
    static final long MAX_CPU_US = 1_000_000;
    static final long MAX_ALLOC_KB = 64 * 1024;
    private static final int MAX_QUERY = 1024;
    private static final int MAX_DRAIN = 64 * 1024;

    private Handlers() {
    }

    static ThreadFactory threadFactory() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "sut-worker-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    static void health(HttpExchange ex) throws IOException {
        try (ex) {
            drain(ex);
            if (!isPath(ex, "/health") || !isMethod(ex, "GET", "HEAD"))
                return;
            reply(ex, 200, "{\"status\":\"ok\"}");
        }
    }

    static void work(HttpExchange ex) throws IOException {
        try (ex) {
            drain(ex);
            if (!isPath(ex, "/work") || !isMethod(ex, "GET"))
                return;
            long cpuUs = DEFAULT_CPU_US, allocKb = DEFAULT_ALLOC_KB;
            String q = ex.getRequestURI().getRawQuery();
            if (q != null && !q.isEmpty()) {
                if (q.length() > MAX_QUERY) {
                    reply(ex, 400, error("bad_query", "query longer than " + MAX_QUERY + " bytes"));
                    return;
                }
                for (String kv : q.split("&", -1)) {
                    int eq = kv.indexOf('=');
                    String k = eq < 0 ? kv : kv.substring(0, eq);
                    String v = eq < 0 ? "" : kv.substring(eq + 1);
                    long n;
                    switch (k) {
                    case "cpu_us":
                        n = parseBounded(v, MAX_CPU_US);
                        if (n < 0) {
                            reply(ex, 400, error("bad_cpu_us", "cpu_us must be an integer in [0, " + MAX_CPU_US + "]"));
                            return;
                        }
                        cpuUs = n;
                        break;
                    case "alloc_kb":
                        n = parseBounded(v, MAX_ALLOC_KB);
                        if (n < 0) {
                            reply(ex, 400, error("bad_alloc_kb", "alloc_kb must be an integer in [0, " + MAX_ALLOC_KB + "]"));
                            return;
                        }
                        allocKb = n;
                        break;
                    default:
                        reply(ex, 400, error("bad_query", "unknown parameter (known: cpu_us, alloc_kb)"));
                        return;
                    }
                }
            }
            Work.Result r = Work.run(cpuUs, (int) allocKb);
            reply(ex, 200, "{\"cpu_us\":" + cpuUs + ",\"alloc_kb\":" + allocKb + ",\"cpu_ns\":" + r.cpuNs
                    + ",\"check\":" + r.check + "}");
        }
    }

    static void gc(HttpExchange ex) throws IOException {
        try (ex) {
            drain(ex);
            if (!isPath(ex, "/gc") || !isMethod(ex, "POST"))
                return;
            long t0 = System.nanoTime();
            System.gc();
            long ns = System.nanoTime() - t0;
            reply(ex, 200, "{\"gc_ns\":" + ns + "}");
        }
    }

    static void notFound(HttpExchange ex) throws IOException {
        try (ex) {
            drain(ex);
            reply(ex, 404, error("not_found", "no such path"));
        }
    }

    /* A decimal integer in [0, max], or -1: no sign, no spaces, no overflow. */
    static long parseBounded(String v, long max) {
        if (v.isEmpty() || v.length() > 19)
            return -1;
        long n = 0;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9')
                return -1;
            n = n * 10 + (c - '0');
            if (n > max)
                return -1;
        }
        return n;
    }

    /* Contexts match by prefix; only the exact path is an endpoint. */
    private static boolean isPath(HttpExchange ex, String path) throws IOException {
        if (ex.getRequestURI().getPath().equals(path))
            return true;
        reply(ex, 404, error("not_found", "no such path"));
        return false;
    }

    private static boolean isMethod(HttpExchange ex, String... allowed) throws IOException {
        String m = ex.getRequestMethod();
        for (String a : allowed)
            if (a.equals(m))
                return true;
        ex.getResponseHeaders().set("Allow", String.join(", ", allowed));
        reply(ex, 405, error("method_not_allowed", "use " + String.join(" or ", allowed)));
        return false;
    }

    private static String error(String code, String message) {
        return "{\"error\":{\"code\":\"" + code + "\",\"message\":\"" + message + "\"}}";
    }

    /* Read (a bounded amount of) any request body so the connection can be kept alive. */
    private static void drain(HttpExchange ex) throws IOException {
        try (InputStream in = ex.getRequestBody()) {
            byte[] buf = new byte[4096];
            int total = 0, n;
            while (total < MAX_DRAIN && (n = in.read(buf)) > 0)
                total += n;
        }
    }

    private static void reply(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = (body + "\n").getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        if (ex.getRequestMethod().equals("HEAD")) {
            ex.sendResponseHeaders(status, -1);
            return;
        }
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(b);
        }
    }
}
