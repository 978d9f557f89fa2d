package dev.magus.orchestrator;

import dev.magus.orchestrator.run.Host;

import dev.magus.env.platform.Platform;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.RunEvent;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunServices;
import dev.magus.policy.HostFacts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A fake host for pipeline tests: a home, a workspace and a temp base in the test's temp
 * directory, and an environment built by hand. The real home is never the run's.
 */
public final class TestHost implements AutoCloseable {
    /** Every host not closed yet: {@link ClosesTestHosts} closes them after each test. */
    static final java.util.Queue<TestHost> OPEN = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** Generous bound for a run that should take well under a second; a deadline, not a timing assertion. */
    public static final Duration DEADLINE = Duration.ofSeconds(60);

    public final Path home;
    public final Path workspace;
    public final Path tempBase;
    public final Map<String, String> env = new LinkedHashMap<>();
    /** What the test's runs keep from one to the next, as one process's would; closed with the host. */
    public final RunServices services = new RunServices();

    public TestHost(Path root) {
        try {
            this.home = Files.createDirectories(root.resolve("home")).toRealPath();
            this.workspace = Files.createDirectories(root.resolve("ws")).toRealPath();
            this.tempBase = Files.createDirectories(root.resolve("tmp")).toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        env.put("PATH", Optional.ofNullable(System.getenv("PATH")).orElse("/usr/bin:/bin"));
        env.put("HOME", home.toString());
        env.put("LANG", "C.UTF-8");
        OPEN.add(this);
    }

    /** Closes the host's services (its I/O threads, its watchdog); {@link ClosesTestHosts} does so after each test. */
    @Override
    public void close() {
        OPEN.remove(this);
        services.close();
    }

    /**
     * Makes the workspace a git repository, unconfined, with this host's HOME and PATH; the
     * caller's test is skipped, saying {@code skipWhy}, when no git is on PATH.
     *
     * @return the git executable
     */
    public Path gitInit(String skipWhy) throws IOException, InterruptedException {
        Optional<Path> found = dev.magus.policy.LookPath.find("git", env.get("PATH"), workspace);
        if (found.isEmpty()) {
            System.err.println(skipWhy);
        }
        Assumptions.assumeTrue(found.isPresent(), skipWhy);
        ProcessBuilder pb = new ProcessBuilder(found.get().toString(), "init", "-q", workspace.toString());
        pb.environment().clear();
        pb.environment().putAll(Map.of("HOME", home.toString(), "PATH", env.get("PATH")));
        Process p = pb.redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        return found.get();
    }

    /**
     * System property: {@code absent} plays a host without Landlock here, where the kernel has
     * it: {@link #probe()} answers ABI 0 and {@link RecordingSpawner#forThisHost()} is the fake
     * that confines nothing, so the tests that need no kernel are seen to pass without one
     * ({@code mvn -pl orchestrator test -Dmagus.test.landlock=absent}).
     */
    public static final String LANDLOCK_PROPERTY = "magus.test.landlock";

    /** The host's Landlock, or ABI 0 when {@value #LANDLOCK_PROPERTY} says it is absent. */
    public static LandlockProbe probe() {
        if ("absent".equals(System.getProperty(LANDLOCK_PROPERTY))) {
            return LandlockProbe.fixed(0);
        }
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        return linux ? LandlockProbe.kernel() : LandlockProbe.fixed(0);
    }

    /** Whether this host runs confined children (Linux, Landlock ABI 3+). */
    public static boolean landlock() {
        return probe().abi() >= 3;
    }

    /**
     * Skips, saying why on stderr, unless this host can start children at all (Linux with
     * glibc): a test that needs a child but no kernel layer, run by {@link RecordingSpawner}.
     */
    public static void assumeChildren() {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        String why = "pipeline test skipped: starting a child needs Linux (os " + System.getProperty("os.name") + ")";
        if (!linux) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(linux, why);
    }

    /** Skips, saying why on stderr, unless this host runs confined children (Linux, Landlock ABI 3+). */
    public static int assumeLandlock() {
        int abi = probe().abi();
        String why = "pipeline test skipped: needs Linux with Landlock ABI 3 or newer (os " + System.getProperty("os.name")
                + ", ABI " + abi + ", " + LANDLOCK_PROPERTY + "=" + System.getProperty(LANDLOCK_PROPERTY, "unset") + ")";
        if (abi < 3) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(abi >= 3, why);
        return abi;
    }

    public TestHost mode(String mode) {
        return yaml("sandbox:\n  mode: " + mode + "\n");
    }

    /** Writes the workspace's magus.yaml and trusts it, as the person who wrote it would ({@code magus trust}). */
    public TestHost yaml(String text) {
        untrustedYaml(text);
        try {
            dev.magus.workspace.trust.TrustStore.of(env, home).trust(workspace.resolve("magus.yaml"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Writes the workspace's magus.yaml as a cloned repository brings it: not trusted. */
    public TestHost untrustedYaml(String text) {
        try {
            Files.writeString(workspace.resolve("magus.yaml"), text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public Host host() {
        return new Host(env, home, uid(), Platform.LINUX, List.of(), Optional.empty(), tempBase);
    }

    public Orchestrator orchestrator() {
        return Orchestrator.builder(host()).services(services).build();
    }

    public Orchestrator orchestrator(LandlockProbe probe) {
        return Orchestrator.builder(host()).services(services).probe(probe).build();
    }

    public Orchestrator orchestrator(LandlockProbe probe, RecordingSpawner spawner) {
        return Orchestrator.builder(host()).services(services).probe(probe).spawner(spawner).build();
    }

    /** An executable script at {@code dir/name}. */
    public static Path script(Path dir, String name, String body) {
        try {
            Files.createDirectories(dir);
            Path p = dir.resolve(name);
            Files.writeString(p, "#!/bin/sh\n" + body + "\n");
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<RunEvent> events(Run run) {
        List<RunEvent> all = run.events().collectList().block(DEADLINE);
        assertThat(all).as("events of run %s", run.id()).isNotNull();
        return all;
    }

    public static List<String> lines(List<RunEvent> events, RunEvent.Stream stream) {
        return events.stream().filter(e -> e instanceof RunEvent.Output o && o.stream() == stream)
                .map(e -> ((RunEvent.Output) e).line()).toList();
    }

    /** Every output line and diagnostic, one per line, for assertions and failure messages. */
    public static String text(List<RunEvent> events) {
        StringBuilder sb = new StringBuilder();
        for (RunEvent e : events) {
            if (e instanceof RunEvent.Output o) {
                sb.append(o.line()).append('\n');
            } else if (e instanceof RunEvent.Diag d) {
                sb.append(d.diagnostic().code()).append(' ').append(d.diagnostic().message()).append('\n');
            }
        }
        return sb.toString();
    }

    public static List<Code> codes(List<RunEvent> events) {
        return events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic().code()).toList();
    }

    /** The child's environment as {@code env} printed it. */
    public static Map<String, String> parseEnv(List<String> lines) {
        return lines.stream().filter(l -> l.indexOf('=') > 0)
                .collect(Collectors.toMap(l -> l.substring(0, l.indexOf('=')), l -> l.substring(l.indexOf('=') + 1), (a, b) -> b));
    }

    public static long uid() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
