package dev.magus.server.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The login-session rule of {@link AutoStart}, written once, in Java: for each environment it says
 * whether the user's server starts by itself. The native client has no copy of it: where nobody
 * answers, it hands the run to the Java command line untouched and starts nothing. The launcher
 * and the Java command are scripts that write down how they were called.
 */
class AutoStartRuleTest {
    static final Path NATIVE = Path.of("target", "native", "magus-client");

    @TempDir
    Path root;
    Path runtime;
    Path launcherCalls;
    Path javaCalls;
    Path launcher;
    Path java;
    String home;
    boolean nativeBuilt;

    @BeforeEach
    void setUp() throws Exception {
        runtime = Files.createDirectory(root.resolve("rt"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        launcherCalls = root.resolve("launcher.calls");
        javaCalls = root.resolve("java.calls");
        launcher = script("launcher", launcherCalls);
        java = script("java", javaCalls);
        home = System.getProperty("user.home");
    }

    private Path script(String name, Path calls) throws Exception {
        Path p = root.resolve(name);
        Files.writeString(p, "#!/bin/sh\necho \"$*\" >> '" + calls + "'\n");
        p.toFile().setExecutable(true);
        return p;
    }

    private Map<String, String> base() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/usr/bin:/bin");
        env.put("HOME", home);
        env.put("XDG_RUNTIME_DIR", runtime.toString());
        // Never the user's own cache: where the socket would be without a runtime dir.
        env.put("XDG_CACHE_HOME", root.resolve("cache").toString());
        return env;
    }

    @Test
    void theJavaRuleDecidesEveryCaseAndTheNativeClientLeavesItToIt() throws Exception {
        boolean nativeBuilt = Files.isExecutable(NATIVE);
        if (!nativeBuilt) {
            System.err.println("native half skipped: " + NATIVE + " was not built (the build found no C compiler, cc)");
        }
        this.nativeBuilt = nativeBuilt;
        Path link = Files.createSymbolicLink(root.resolve("rt-link"), runtime);
        Path throwaway = Files.createDirectory(root.resolve("fake-home"));
        List<String> failures = new ArrayList<>();
        check(failures, "a login session", true, e -> { });
        check(failures, "HOME with a trailing slash", true, e -> e.put("HOME", home + "/"));
        check(failures, "MAGUS_SERVER set to something else than off", true, e -> e.put("MAGUS_SERVER", "on"));
        check(failures, "MAGUS_SERVER=off", false, e -> e.put("MAGUS_SERVER", "off"));
        check(failures, "no XDG_RUNTIME_DIR", false, e -> e.remove("XDG_RUNTIME_DIR"));
        check(failures, "a relative XDG_RUNTIME_DIR", false, e -> e.put("XDG_RUNTIME_DIR", "rt"));
        check(failures, "XDG_RUNTIME_DIR a link", false, e -> e.put("XDG_RUNTIME_DIR", link.toString()));
        check(failures, "XDG_RUNTIME_DIR missing", false, e -> e.put("XDG_RUNTIME_DIR", root.resolve("gone").toString()));
        check(failures, "a throwaway HOME", false, e -> e.put("HOME", throwaway.toString()));
        check(failures, "no HOME", false, e -> e.remove("HOME"));
        check(failures, "CI", false, e -> e.put("CI", "true"));
        check(failures, "inside a magus run", false, e -> e.put("MAGUS_RUN_ID", "r1"));
        check(failures, "MAGUS_SERVER_ADDRESS", false, e -> e.put("MAGUS_SERVER_ADDRESS", root.resolve("x/s.sock").toString()));
        if (uid() == 0) {
            Path others = Files.createDirectory(root.resolve("rt-other"));
            Files.setAttribute(others, "unix:uid", 65534);
            check(failures, "another user's XDG_RUNTIME_DIR", false, e -> e.put("XDG_RUNTIME_DIR", others.toString()));
        } else {
            System.err.println("case 'another user's XDG_RUNTIME_DIR' skipped: making one needs root");
        }
        assertThat(failures).isEmpty();
    }

    private void check(List<String> failures, String name, boolean starts, Consumer<Map<String, String>> change)
            throws Exception {
        Map<String, String> env = base();
        change.accept(env);
        boolean java = AutoStart.refusal(env, uid()).isEmpty();
        if (java != starts) {
            failures.add(name + ": the Java rule says " + (java ? "start" : "no start") + " ("
                    + AutoStart.refusal(env, uid()).orElse("") + ")");
        }
        if (!nativeBuilt) {
            return;
        }
        Files.deleteIfExists(launcherCalls);
        Files.deleteIfExists(javaCalls);
        ProcessBuilder pb = new ProcessBuilder(NATIVE.toString(), "2", this.java.toString(), "-Dmagus.launcher=" + launcher,
                "run", "--", "true").redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        String said = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String handed = Files.readString(javaCalls).trim();
        if (Files.exists(launcherCalls) || !handed.equals("-Dmagus.launcher=" + launcher + " run -- true") || !said.isEmpty()) {
            failures.add(name + ": the native client " + (Files.exists(launcherCalls) ? "started" : "did not start")
                    + " a server and ran '" + handed + "'; said: " + said.trim());
        }
    }

    static long uid() throws java.io.IOException {
        return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
    }
}
