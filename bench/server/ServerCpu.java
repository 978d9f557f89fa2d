import dev.magus.cli.PrintedLines;
import dev.magus.cli.ServedCommandLine;
import dev.magus.env.platform.Platform;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.RunServices;
import dev.magus.orchestrator.Orchestrator;
import dev.magus.server.MagusServer;
import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import dev.magus.server.lifecycle.IdleTimeout;
import dev.magus.server.socket.SocketDir;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The magus server's own CPU per forwarded run. An in-process server on a real Unix socket in a
 * temp dir, with the command line's parser and lines (as {@code magus server start} gives it), a
 * fake home and a workspace holding a magus.yaml (sandbox required); this thread forwards N runs
 * of {@code true} over the socket as a client's words, one after another, and the process's CPU (user + system, /proc/self/stat, which
 * never counts the reaped children) over the N runs, less this client thread's own CPU, is
 * the server's. Per-thread CPU (ThreadMXBean) splits it by thread group, so the JIT's and
 * the GC's share can be seen apart.
 *
 * <pre>bench/server-cpu.sh [runs, default 2000] [warm-up runs, default 500]</pre>
 */
public final class ServerCpu {
    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int warm = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        Path root = Files.createTempDirectory("magus-server-cpu-");
        Path home = Files.createDirectories(root.resolve("home"));
        Path ws = Files.createDirectories(root.resolve("ws"));
        Path tmp = Files.createDirectories(root.resolve("tmp"));
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/usr/bin:/bin");
        env.put("HOME", home.toString());
        env.put("LANG", "C.UTF-8");
        long uid = ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        SocketDir dir = SocketDir.forUser(env, uid);
        Host host = new Host(env, home, uid, Platform.LINUX, List.of(), Optional.empty(), tmp);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        mx.setThreadCpuTimeEnabled(true);
        try (RunServices services = new RunServices();
                Orchestrator orchestrator = Orchestrator.builder(host).meterRegistry(registry).services(services).build();
                MagusServer server = MagusServer.start(dir, host, orchestrator, registry, new MagusServer.Settings(
                        PrintedLines.INSTANCE, new ServedCommandLine(services), IdleTimeout.DEFAULT, false))) {
            Frame.Command submit = run(ws, env, "true");
            forward(server, submit, warm);
            // For a profiler to attach to the measured phase only.
            System.err.println("measuring: pid " + ProcessHandle.current().pid());
            Map<String, Long> threadsBefore = byGroup(mx);
            long cpuBefore = processCpuNanos();
            long clientBefore = mx.getCurrentThreadCpuTime();
            long wallBefore = System.nanoTime();
            forward(server, submit, runs);
            long wall = System.nanoTime() - wallBefore;
            long client = mx.getCurrentThreadCpuTime() - clientBefore;
            long cpu = processCpuNanos() - cpuBefore;
            Map<String, Long> threadsAfter = byGroup(mx);
            System.out.printf("runs %d (after %d warm-up), wall %.1f ms per run, load %s%n", runs, warm,
                    wall / 1e6 / runs, Files.readString(Path.of("/proc/loadavg")).trim());
            System.out.printf("process CPU %.3f ms/run, client thread %.3f ms/run, server (process - client) %.3f ms/run%n",
                    cpu / 1e6 / runs, client / 1e6 / runs, (cpu - client) / 1e6 / runs);
            System.out.println("by live thread group (ms/run; threads that ended meanwhile are not in these):");
            threadsAfter.forEach((g, t) -> System.out.printf("  %-28s %.3f%n", g, (t - threadsBefore.getOrDefault(g, 0L)) / 1e6 / runs));
            if (System.getenv("SERVER_CPU_ONLY") == null) { // set it to profile the measured runs alone
                memory(server, ws, env);
                chatty(server, ws, env);
            }
        } finally {
            try (var s = Files.walk(root)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * Memory of the idle server (after a GC: RSS and heap used), then with {@value #LIVE} runs of
     * {@code sleep} forwarded at once and alive; per run is the difference over {@value #LIVE}.
     */
    static final int LIVE = 50;

    private static void memory(MagusServer server, Path ws, Map<String, String> env) throws Exception {
        long[] idle = mem();
        System.out.printf("idle server: RSS %.1f MiB, heap used %.1f MiB (after a GC)%n", idle[0] / 1048576.0, idle[1] / 1048576.0);
        Frame.Command sleep = run(ws, env, "sleep", "4");
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(LIVE);
        try {
            java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int i = 0; i < LIVE; i++) {
                done.add(pool.submit(() -> {
                    forward(server, sleep, 1);
                    return null;
                }));
            }
            Thread.sleep(2500);
            long[] busy = mem();
            for (var d : done) {
                d.get();
            }
            System.out.printf("%d live runs: RSS %.1f MiB, heap used %.1f MiB; per run %.0f KiB RSS, %.0f KiB heap"
                    + " (client threads of this harness included)%n", LIVE, busy[0] / 1048576.0, busy[1] / 1048576.0,
                    (busy[0] - idle[0]) / 1024.0 / LIVE, (busy[1] - idle[1]) / 1024.0 / LIVE);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The journal's bound: {@value #CHATTY} runs at once, each printing
     * {@value #CHATTY_LINES} lines and then staying alive; the heap is read once all have printed.
     * The journal keeps every line a subscriber still to come could want only within its window,
     * so this is about what {@value #CHATTY} silent runs cost.
     */
    static final int CHATTY = 20;
    static final int CHATTY_LINES = 100_000;

    private static void chatty(MagusServer server, Path ws, Map<String, String> env) throws Exception {
        long[] idle = mem();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(CHATTY);
        try {
            java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int i = 0; i < CHATTY; i++) {
                Path printed = ws.resolve("printed-" + i);
                Frame.Command s = run(ws, env, "sh", "-c", "seq 1 " + CHATTY_LINES + "; : > " + printed + "; sleep 6");
                done.add(pool.submit(() -> {
                    forward(server, s, 1);
                    return null;
                }));
            }
            long deadline = System.nanoTime() + 120_000_000_000L;
            for (int i = 0; i < CHATTY; i++) {
                while (!Files.exists(ws.resolve("printed-" + i)) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
            }
            long[] busy = mem();
            for (var d : done) {
                d.get();
            }
            System.out.printf("%d live runs that printed %d lines each: heap used %.1f MiB; per run %.0f KiB heap"
                    + " (RSS %.1f MiB)%n", CHATTY, CHATTY_LINES, busy[1] / 1048576.0, (busy[1] - idle[1]) / 1024.0 / CHATTY,
                    busy[0] / 1048576.0);
        } finally {
            pool.shutdownNow();
        }
    }

    private static long[] mem() throws Exception {
        System.gc();
        Thread.sleep(200);
        long rss = 0;
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith("VmRSS:")) {
                rss = Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        Runtime rt = Runtime.getRuntime();
        return new long[] {rss, rt.totalMemory() - rt.freeMemory()};
    }

    /** A client's words for {@code magus run --no-stdin -- argv} in {@code ws}. */
    private static Frame.Command run(Path ws, Map<String, String> env, String... argv) {
        List<String> words = new java.util.ArrayList<>(List.of("run", "--no-stdin", "--"));
        words.addAll(List.of(argv));
        return new Frame.Command(words, ws.toString(), env);
    }

    private static void forward(MagusServer server, Frame.Command submit, int n) throws Exception {
        String token = server.token();
        for (int i = 0; i < n; i++) {
            try (ServerClient c = ServerClient.connect(server.socket(), token)) {
                c.send(submit);
                Frame.ToClient f;
                do {
                    f = c.read();
                } while (!(f instanceof Frame.Exit || f instanceof Frame.Declined || f instanceof Frame.Refused
                        || f instanceof Frame.Local));
                if (!(f instanceof Frame.Exit x) || x.status() != 0) {
                    throw new IllegalStateException("run " + i + " ended " + f);
                }
            }
        }
    }

    /** utime + stime of this process (every thread, living or ended; not its reaped children), in ns. */
    static long processCpuNanos() throws Exception {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
        return ticks * 10_000_000L; // USER_HZ is 100 on Linux
    }

    /** CPU of each live thread (the JVM's own, JIT and GC, included), by /proc/self/task, grouped by name. */
    private static Map<String, Long> byGroup(ThreadMXBean mx) throws Exception {
        Map<String, Long> out = new TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                String stat;
                try {
                    stat = Files.readString(t.resolve("stat"));
                } catch (java.io.IOException e) {
                    continue; // ended meanwhile
                }
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long ns = (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
                out.merge(name.replaceAll("[-#]?[0-9]+$", "").replaceAll("[0-9]+", "N"), ns, Long::sum);
            }
        }
        return out;
    }
}
