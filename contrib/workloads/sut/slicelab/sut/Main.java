/* Main.java: entry point of slicelab-sut, the system under test shipped with slicelab.
 *
 * A small HTTP service on the JDK's own com.sun.net.httpserver (no external jars) whose cost per
 * request is chosen by the caller, so experiments can vary CPU and allocation pressure without
 * rebuilding anything:
 *   java -jar slicelab-sut.jar --port N [--threads N] [--bind ADDR]
 * It prints one line "slicelab-sut listening on ADDR:PORT" once it accepts requests (port 0 picks
 * a free port and the line tells which). */
package slicelab.sut;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public final class Main {
    static final int EXIT_USAGE = 2;
    private static final int MAX_THREADS = 4096;
    /* Connections the kernel may queue before the dispatcher accepts them: open-loop injectors
     * open all their connections at once. */
    private static final int BACKLOG = 1024;

    private Main() {
    }

    private static void usage(String why) {
        if (why != null)
            System.err.println("slicelab-sut: " + why);
        System.err.println("usage: java -jar slicelab-sut.jar --port N [--threads N] [--bind ADDR]");
        System.exit(why == null ? 0 : EXIT_USAGE);
    }

    private static int parseInt(String flag, String v, int min, int max) {
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            usage(flag + " wants an integer, got '" + v + "'");
            return -1;
        }
        if (n < min || n > max)
            usage(flag + " must be in [" + min + ", " + max + "], got " + n);
        return n;
    }

    public static void main(String[] args) throws IOException {
        int port = -1;
        /* Requests are CPU-bound, so more runnable threads than CPUs only adds context switches;
         * twice the CPU count keeps every CPU busy while some threads write responses. The JVM's
         * CPU count follows the container's limits, so this scales with the cell. */
        int threads = Math.max(2, 2 * Runtime.getRuntime().availableProcessors());
        String bind = "127.0.0.1";

        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h"))
                usage(null);
            if (i + 1 >= args.length)
                usage(a.startsWith("--") ? a + " needs a value" : "unexpected argument '" + a + "'");
            String v = args[++i];
            switch (a) {
            case "--port":
                port = parseInt(a, v, 0, 65535);
                break;
            case "--threads":
                threads = parseInt(a, v, 1, MAX_THREADS);
                break;
            case "--bind":
                bind = v;
                break;
            default:
                usage("unknown option '" + a + "'");
            }
        }
        if (port < 0)
            usage("--port is required");

        InetAddress addr;
        try {
            addr = InetAddress.getByName(bind);
        } catch (IOException e) {
            usage("--bind: cannot resolve '" + bind + "'");
            return;
        }

        // The JDK server writes headers and body as two segments: without TCP_NODELAY, Nagle holds
        // the body until the client's delayed ACK and every answer takes ~40 ms.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress(addr, port), BACKLOG);
        ExecutorService pool = Executors.newFixedThreadPool(threads, Handlers.threadFactory());
        server.setExecutor(pool);
        server.createContext("/health", Handlers::health);
        server.createContext("/work", Handlers::work);
        server.createContext("/gc", Handlers::gc);
        server.createContext("/", Handlers::notFound);
        server.start();

        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop(0);
            pool.shutdownNow();
        }, "slicelab-sut-shutdown"));

        InetSocketAddress bound = server.getAddress();
        /* The readiness line: printed only after start(), flushed so a `log` ready probe sees it. */
        System.out.println("slicelab-sut listening on " + bound.getAddress().getHostAddress() + ":"
                + bound.getPort() + " threads=" + threads);
        System.out.flush();
    }
}
