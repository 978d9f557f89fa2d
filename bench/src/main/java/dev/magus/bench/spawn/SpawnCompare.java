package dev.magus.bench.spawn;

import dev.magus.bench.Fixtures;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.launch.Child;
import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.launch.Launcher;
import dev.magus.landlock.launch.Spawn;
import dev.magus.landlock.launch.SpawnRequest;
import dev.magus.policy.LookPath;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.events.Mode;
import dev.magus.policy.path.PathResolver;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Side-by-side spawn cost of {@code /bin/true}, in one JVM, interleaved (each round runs every
 * method once, in a freshly shuffled order), after a warm-up:
 *
 * <ul>
 *   <li>(a) a plain unconfined {@link ProcessBuilder};</li>
 *   <li>(b) magus's confined launcher under a Landlock ruleset (read-only system dirs, a
 *       writable workspace);</li>
 *   <li>(b0) the same launcher unconfined (mode off: {@code posix_spawn} on the calling thread,
 *       no launch thread), to show what the launcher costs without the thread and Landlock;</li>
 *   <li>(c) bubblewrap with a comparable read-only/writable setup, when {@code bwrap} is on PATH;</li>
 *   <li>(d) {@code posix_spawn} on the calling thread through JNA, unconfined: the floor.</li>
 * </ul>
 *
 * <p>Two times per spawn: <b>call</b>, until the spawning call returns with a running child
 * (for (c) that is bwrap's own start, not the command's, so only its exit time compares), and
 * <b>exit</b>, until the child has been reaped. Prints median, p90 and mean of each, and the
 * ratios b/a, b/d and c/a.
 *
 * <pre>bench/spawn-compare.sh [--rounds 300] [--warmup 50] [--seed 1]</pre>
 */
public final class SpawnCompare {
    private SpawnCompare() {
    }

    /** Nanoseconds until the call returned and until the child was reaped. */
    record Sample(long call, long exit) {
    }

    interface Method {
        Sample once() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = options(args);
        int rounds = Integer.parseInt(opts.getOrDefault("rounds", "300"));
        int warmup = Integer.parseInt(opts.getOrDefault("warmup", "50"));
        long seed = Long.parseLong(opts.getOrDefault("seed", "1"));
        if (rounds < 1 || warmup < 0) {
            throw new IllegalArgumentException("--rounds must be at least 1 and --warmup not negative");
        }

        Path root = Fixtures.tempRoot("magus-spawn-compare-");
        try {
            Path ws = Fixtures.dirs(root.resolve("ws"));
            Path exe = new PathResolver().resolve(Path.of("/bin/true")).resolvedPath().orElseThrow();
            if (!Files.isExecutable(exe)) {
                System.out.println("/bin/true is not executable here; nothing to compare");
                return;
            }
            Map<String, String> env = new TreeMap<>(Map.of("PATH", "/usr/bin:/bin", "LANG", "C.UTF-8", "HOME", ws.toString()));
            List<String> envp = new ArrayList<>();
            env.forEach((k, v) -> envp.add(k + "=" + v));

            Map<String, Method> methods = new LinkedHashMap<>();
            List<String> notes = new ArrayList<>();
            methods.put("a", plainProcessBuilder(exe, ws, env));
            List<Rule> rules = comparableRules(ws);
            Optional<Confinement> confinement = Optional.empty();
            try {
                Launcher launcher = Launcher.get();
                int abi = LandlockProbe.kernel().abi();
                if (abi <= 0) {
                    notes.add("(b) Landlock is not available on this host (ABI 0): column b skipped");
                } else {
                    Confinement c = Confinement.prepare(Mode.BEST_EFFORT, rules, LandlockProbe.kernel());
                    confinement = Optional.of(c);
                    methods.put("b", launched(launcher, exe, ws, env, c, true));
                    notes.add("(b) Landlock ABI " + abi + ", rules: " + describe(rules)
                            + (launcher.dropsCapabilities() ? "; running as root, so children are cut to Docker's capability set" : ""));
                }
                methods.put("b0", launched(launcher, exe, ws, env, Confinement.off(), false));
            } catch (RuntimeException | LinkageError e) {
                notes.add("(b) launcher not available: " + e + ": columns b and b0 skipped");
            }
            Optional<Path> bwrap = onPath("bwrap");
            if (bwrap.isPresent()) {
                List<String> argv = bwrapArgv(bwrap.get(), exe, ws);
                methods.put("c", processBuilder(argv, ws, env));
                notes.add("(c) " + String.join(" ", argv));
            } else {
                notes.add("(c) bwrap not installed, column c skipped");
            }
            try {
                methods.put("d", floor(exe, ws, envp));
            } catch (RuntimeException | LinkageError e) {
                notes.add("(d) posix_spawn through JNA not available: " + e + ": column d skipped");
            }

            Map<String, List<Sample>> samples = run(methods, rounds, warmup, seed);
            confinement.ifPresent(Confinement::close);
            print(samples, rounds, warmup, notes);
        } finally {
            Fixtures.delete(root);
        }
    }

    static Map<String, List<Sample>> run(Map<String, Method> methods, int rounds, int warmup, long seed) throws Exception {
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        methods.keySet().forEach(k -> samples.put(k, new ArrayList<>(rounds)));
        List<String> order = new ArrayList<>(methods.keySet());
        Random random = new Random(seed);
        for (int round = 0; round < warmup + rounds; round++) {
            Collections.shuffle(order, random);
            for (String name : order) {
                Sample s = methods.get(name).once();
                if (round >= warmup) {
                    samples.get(name).add(s);
                }
            }
        }
        return samples;
    }

    private static Method plainProcessBuilder(Path exe, Path ws, Map<String, String> env) {
        return processBuilder(List.of(exe.toString()), ws, env);
    }

    private static Method processBuilder(List<String> argv, Path ws, Map<String, String> env) {
        ProcessBuilder pb = new ProcessBuilder(argv).directory(ws.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        return () -> {
            long t0 = System.nanoTime();
            Process p = pb.start();
            long t1 = System.nanoTime();
            int status = p.waitFor();
            long t2 = System.nanoTime();
            p.getOutputStream().close();
            p.getInputStream().close();
            p.getErrorStream().close();
            if (status != 0) {
                throw new IllegalStateException(argv + " exited " + status);
            }
            return new Sample(t1 - t0, t2 - t0);
        };
    }

    private static Method launched(Launcher launcher, Path exe, Path ws, Map<String, String> env, Confinement c, boolean mustBeConfined) {
        SpawnRequest request = SpawnRequest.of(exe, List.of(), env, ws);
        return () -> {
            long t0 = System.nanoTime();
            Spawn s = launcher.spawn(request, c);
            long t1 = System.nanoTime();
            if (!(s instanceof Spawn.Started started)) {
                throw new IllegalStateException("launcher did not start " + exe + ": " + s);
            }
            try (Child child = started.child()) {
                int status = child.waitFor().status();
                long t2 = System.nanoTime();
                if (status != 0 || child.confined() != mustBeConfined) {
                    throw new IllegalStateException(child + " exited " + status);
                }
                return new Sample(t1 - t0, t2 - t0);
            }
        };
    }

    private static Method floor(Path exe, Path ws, List<String> envp) {
        PosixSpawnFloor f = new PosixSpawnFloor(exe, ws, envp);
        return () -> {
            long t0 = System.nanoTime();
            PosixSpawnFloor.Spawned s = f.spawn();
            long t1 = System.nanoTime();
            int status = PosixSpawnFloor.finish(s);
            long t2 = System.nanoTime();
            if (status != 0) {
                throw new IllegalStateException("posix_spawn child: wait status " + status);
            }
            return new Sample(t1 - t0, t2 - t0);
        };
    }

    /** What both (b) and (c) give the child: the system read-only (programs executable), the workspace writable, /dev/null. */
    static List<Rule> comparableRules(Path ws) {
        List<Rule> rules = new ArrayList<>();
        PathResolver resolver = new PathResolver();
        for (String p : List.of("/usr", "/bin", "/sbin", "/lib", "/lib64")) {
            // On a merged-/usr host /bin is /usr/bin: already covered, so not a rule of its own.
            resolver.resolve(Path.of(p)).resolvedPath().filter(Files::exists)
                    .filter(r -> rules.stream().noneMatch(k -> r.startsWith(k.path())))
                    .ifPresent(r -> rules.add(new Rule(r, AccessMode.RX, "compare:" + p)));
        }
        rules.add(new Rule(Path.of("/etc"), AccessMode.R, "compare:/etc"));
        rules.add(new Rule(Path.of("/dev/null"), AccessMode.RW, "compare:/dev/null"));
        rules.add(new Rule(ws, AccessMode.RWX, "compare:workspace"));
        return rules;
    }

    /**
     * bwrap's equivalent: the same directories bound read-only (a merged-/usr host's /bin and
     * /lib are symlinks, recreated as such), the workspace bound writable, /dev/null, and no
     * more namespaces than bwrap always makes (a mount namespace; a user namespace when not root).
     */
    static List<String> bwrapArgv(Path bwrap, Path exe, Path ws) throws IOException {
        List<String> argv = new ArrayList<>(List.of(bwrap.toString()));
        for (String p : List.of("/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc")) {
            Path path = Path.of(p);
            if (Files.isSymbolicLink(path)) {
                argv.addAll(List.of("--symlink", Files.readSymbolicLink(path).toString(), p));
            } else if (Files.exists(path)) {
                argv.addAll(List.of("--ro-bind", p, p));
            }
        }
        argv.addAll(List.of("--dev-bind", "/dev/null", "/dev/null", "--bind", ws.toString(), ws.toString(),
                "--chdir", ws.toString(), exe.toString()));
        return argv;
    }

    private static String describe(List<Rule> rules) {
        StringBuilder sb = new StringBuilder();
        for (Rule r : rules) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(r.path()).append(' ').append(r.mode().declared());
        }
        return sb.toString();
    }

    /**
     * {@code name} on this JVM's PATH, through {@link LookPath}. Empty PATH entries are skipped
     * (LookPath would read them as the working directory), and a relative entry gives a relative
     * path (resolved against {@code Path.of("")}, the JVM's working directory).
     */
    static Optional<Path> onPath(String name) {
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        String dirs = Arrays.stream(path.split(File.pathSeparator))
                .filter(dir -> !dir.isEmpty())
                .collect(Collectors.joining(File.pathSeparator));
        return dirs.isEmpty() ? Optional.empty() : LookPath.find(name, dirs, Path.of(""));
    }

    // --- report ----------------------------------------------------------------------------

    static void print(Map<String, List<Sample>> samples, int rounds, int warmup, List<String> notes) {
        Map<String, String> labels = Map.of(
                "a", "(a) plain ProcessBuilder",
                "b", "(b) magus confined launcher",
                "b0", "(b0) magus launcher, unconfined",
                "c", "(c) bwrap",
                "d", "(d) posix_spawn, calling thread (floor)");
        System.out.printf(Locale.ROOT, "spawn cost of /bin/true: %d interleaved rounds after %d warm-up rounds, one JVM (%s %s, %d cpus)%n%n",
                rounds, warmup, System.getProperty("java.vm.name"), System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());
        System.out.println("| method | call median µs | call p90 µs | exit median µs | exit p90 µs | exit mean µs |");
        System.out.println("| --- | ---: | ---: | ---: | ---: | ---: |");
        Map<String, Stats> call = new LinkedHashMap<>();
        Map<String, Stats> exit = new LinkedHashMap<>();
        samples.forEach((k, list) -> {
            call.put(k, Stats.of(list.stream().mapToLong(Sample::call).toArray()));
            exit.put(k, Stats.of(list.stream().mapToLong(Sample::exit).toArray()));
        });
        for (String k : samples.keySet()) {
            String callCols = k.equals("c") ? "n/a¹ | n/a¹" : us(call.get(k).median) + " | " + us(call.get(k).p90);
            System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s |%n", labels.get(k), callCols,
                    us(exit.get(k).median), us(exit.get(k).p90), us(exit.get(k).mean));
        }
        System.out.println();
        System.out.println("| ratio | call (median) | call (p90) | exit (median) | exit (p90) |");
        System.out.println("| --- | ---: | ---: | ---: | ---: |");
        ratio("b/a", "b", "a", call, exit, true);
        ratio("b/d", "b", "d", call, exit, true);
        ratio("b0/d", "b0", "d", call, exit, true);
        ratio("c/a", "c", "a", call, exit, false);
        System.out.println();
        System.out.println("call: until the spawning call returned with a running child; exit: until the child was reaped.");
        if (samples.containsKey("c")) {
            System.out.println("¹ bwrap's call returns when bwrap itself has started, before it sets up and execs the command: only its exit time compares.");
        }
        notes.forEach(System.out::println);
    }

    private static void ratio(String name, String x, String y, Map<String, Stats> call, Map<String, Stats> exit, boolean withCall) {
        if (!exit.containsKey(x) || !exit.containsKey(y)) {
            System.out.printf(Locale.ROOT, "| %s | skipped | skipped | skipped | skipped |%n", name);
            return;
        }
        String c = withCall
                ? String.format(Locale.ROOT, "%.2f× | %.2f×", call.get(x).median / call.get(y).median, call.get(x).p90 / call.get(y).p90)
                : "n/a | n/a";
        System.out.printf(Locale.ROOT, "| %s | %s | %.2f× | %.2f× |%n", name, c,
                exit.get(x).median / exit.get(y).median, exit.get(x).p90 / exit.get(y).p90);
    }

    private static String us(double nanos) {
        return String.format(Locale.ROOT, "%.0f", nanos / 1000.0);
    }

    record Stats(double median, double p90, double mean) {
        static Stats of(long[] values) {
            long[] v = values.clone();
            Arrays.sort(v);
            return new Stats(percentile(v, 50), percentile(v, 90), Arrays.stream(v).average().orElse(Double.NaN));
        }

        /** Nearest rank. */
        static double percentile(long[] sorted, int p) {
            return percentile(Arrays.stream(sorted).asDoubleStream().toArray(), p);
        }

        /** Nearest rank, of values sorted ascending; NaN when there are none. Also SchedTrace's. */
        static double percentile(double[] sorted, int p) {
            if (sorted.length == 0) {
                return Double.NaN;
            }
            int rank = (int) Math.ceil(p / 100.0 * sorted.length);
            return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
        }
    }

    static Map<String, String> options(String[] args) {
        Map<String, String> out = new TreeMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                System.out.println("usage: spawn-compare.sh [--rounds N (300)] [--warmup W (50)] [--seed S (1)]");
                System.exit(0);
            }
            if (!a.startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("unknown argument " + a + " (try --help)");
            }
            String key = a.substring(2);
            if (!List.of("rounds", "warmup", "seed").contains(key)) {
                throw new IllegalArgumentException("unknown option " + a + " (try --help)");
            }
            out.put(key, args[++i]);
        }
        return out;
    }
}
