package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.assumeLandlock;
import static dev.magus.landlock.launch.Children.env;
import static dev.magus.landlock.launch.Children.rule;
import static dev.magus.landlock.launch.Children.systemPlus;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.policy.fs.AccessMode;
import dev.magus.events.Mode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** One JVM, many policies, many spawns: each child gets exactly its own domain, and no JVM thread any. */
class ConcurrencyTest {
    @TempDir
    Path root;

    @Test
    void twoConcurrentChildrenUnderTwoPoliciesEachGetExactlyTheirOwn() throws Exception {
        assumeLandlock();
        Path a = Files.createDirectories(root.resolve("a"));
        Path b = Files.createDirectories(root.resolve("b"));
        Files.writeString(a.resolve("data"), "alpha\n");
        Files.writeString(b.resolve("data"), "beta\n");
        Map<String, String> env = env(root);
        try (Confinement ca = Confinement.prepare(Mode.REQUIRED, systemPlus(rule(a, AccessMode.RWX)), LandlockProbe.kernel());
             Confinement cb = Confinement.prepare(Mode.REQUIRED, systemPlus(rule(b, AccessMode.RWX)), LandlockProbe.kernel())) {
            // Each child checks both directories, waits on stdin so the two overlap, then checks again.
            String script = "check() { cat \"$1/data\"; if cat \"$2/data\" 2>/dev/null; then echo LEAK; fi; }; "
                    + "check \"$MINE\" \"$THEIRS\"; read go; check \"$MINE\" \"$THEIRS\"; echo x > \"$MINE/w\"; "
                    + "echo x > \"$THEIRS/w\" 2>/dev/null && echo LEAK; true";
            Child childA = start(ca, env, a, a, b, script);
            Child childB = start(cb, env, b, b, a, script);
            childA.stdin().write("go\n".getBytes(StandardCharsets.UTF_8));
            childB.stdin().write("go\n".getBytes(StandardCharsets.UTF_8));
            childA.stdin().close();
            childB.stdin().close();
            Children.Result ra = Children.collect(childA).assertOk();
            Children.Result rb = Children.collect(childB).assertOk();
            assertThat(ra.out()).isEqualTo("alpha\nalpha\n");
            assertThat(rb.out()).isEqualTo("beta\nbeta\n");
            assertThat(a.resolve("w")).exists();
            assertThat(b.resolve("w")).exists();
        }
    }

    private static Child start(Confinement c, Map<String, String> env, Path cwd, Path mine, Path theirs, String script) {
        Map<String, String> e = new java.util.HashMap<>(env);
        e.put("MINE", mine.toString());
        e.put("THEIRS", theirs.toString());
        Spawn s = Launcher.get().spawn(new SpawnRequest(Children.SH, List.of("sh", "-c", script), e, cwd, Stdio.PIPES), c);
        return ((Spawn.Started) s).child();
    }

    /**
     * Hundreds of confined spawns from Reactor workers, the common pool and plain threads, with
     * ProcessBuilder spawns mixed in from the same threads: afterwards no live thread has
     * no_new_privs or a reduced capability set, and ProcessBuilder children started from
     * threads that launched confined children are not confined.
     */
    @Test
    void afterHundredsOfSpawnsNoJvmThreadIsConfined() throws Exception {
        assumeLandlock();
        Path ws = Files.createDirectories(root.resolve("ws"));
        Path secret = Files.writeString(root.resolve("outside"), "unconfined\n");
        Map<String, String> env = env(root);
        Path trueBin = Children.real(Path.of("/bin/true"));
        String processCaps = field(Files.readAllLines(Path.of("/proc/self/status")), "CapEff");
        try (Confinement c = Confinement.prepare(Mode.BEST_EFFORT, systemPlus(rule(ws, AccessMode.RWX)), LandlockProbe.kernel())) {
            Callable<Integer> confinedTrue = () -> Children.run(SpawnRequest.of(trueBin, List.of(), env, ws), c).status();
            Callable<String> pbCat = () -> {
                Process p = new ProcessBuilder("cat", secret.toString()).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                p.waitFor();
                return out;
            };

            // Reactor boundedElastic, 8 at a time, each worker also starting a ProcessBuilder child now and then.
            List<Object> reactor = Flux.range(0, 160)
                    .flatMap(i -> Mono.fromCallable(() -> i % 20 == 0 ? (Object) pbCat.call() : confinedTrue.call())
                            .subscribeOn(Schedulers.boundedElastic()), 8)
                    .collectList()
                    .block();
            assertThat(reactor).hasSize(160);
            assertThat(reactor).filteredOn(o -> o instanceof Integer).allMatch(o -> (Integer) o == 0);
            assertThat(reactor).filteredOn(o -> o instanceof String).allMatch(o -> o.equals("unconfined\n"));

            // The common pool: parallel spawns, and plain CPU work that may create more workers.
            List<Integer> pool = ForkJoinPool.commonPool().submit(() -> IntStream.range(0, 60).parallel()
                    .map(i -> {
                        try {
                            return i % 2 == 0 ? confinedTrue.call() : Long.toString(IntStream.range(0, 10_000).asLongStream().sum()).length();
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }).boxed().toList()).get();
            assertThat(pool).hasSize(60);

            // Plain threads, and ProcessBuilder from the same threads afterwards.
            ExecutorService plain = Executors.newFixedThreadPool(4);
            List<Future<String>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                futures.add(plain.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        assertThat(confinedTrue.call()).isZero();
                    }
                    return pbCat.call();
                }));
            }
            for (Future<String> f : futures) {
                assertThat(f.get()).isEqualTo("unconfined\n");
            }
            Schedulers.parallel().schedule(() -> { });
            plain.shutdown();
            assertThat(plain.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }

        // spawn() returns once posix_spawn has, so the last launch threads may still be ending:
        // the scan is repeated (bounded) until they are gone; a thread that keeps a domain fails it.
        List<String> offenders = scan(processCaps);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while ((!offenders.isEmpty() || launchThreadsAlive()) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            offenders = scan(processCaps);
        }
        assertThat(offenders).isEmpty();
        assertThat(launchThreadsAlive()).as("launch threads still alive after 30 s").isFalse();
    }

    private static boolean launchThreadsAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().startsWith("magus-sandbox-launch-") && t.isAlive());
    }

    /** Every thread of this process with no_new_privs, or whose effective capabilities differ from the process's (a parked spare: the cut). */
    private static List<String> scan(String processCaps) throws IOException {
        List<String> offenders = new ArrayList<>();
        // Parked spares have the capability cut already (checked exactly below) and no domain.
        java.util.Set<String> parkedSpares = new java.util.HashSet<>();
        for (SpareThread spare : Launcher.get().spares().parked()) {
            if (spare.tid != 0) {
                ParkedSpares.assertParkedSpare(spare.tid);
                parkedSpares.add(Integer.toString(spare.tid));
            }
        }
        int threads = 0;
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                List<String> status;
                try {
                    status = Files.readAllLines(task.resolve("status"));
                } catch (IOException gone) {
                    continue; // the thread ended while we listed
                }
                threads++;
                String name = field(status, "Name");
                if (!"0".equals(field(status, "NoNewPrivs"))) {
                    offenders.add(name + " has NoNewPrivs " + field(status, "NoNewPrivs"));
                }
                if (!processCaps.equals(field(status, "CapEff")) && !parkedSpares.contains(task.getFileName().toString())) {
                    offenders.add(name + " has CapEff " + field(status, "CapEff"));
                }
            }
        }
        assertThat(threads).isGreaterThan(10);
        return offenders;
    }

    private static String field(List<String> status, String name) {
        return status.stream().filter(l -> l.startsWith(name + ":")).findFirst()
                .map(l -> l.substring(name.length() + 1).strip()).orElse("?");
    }
}
