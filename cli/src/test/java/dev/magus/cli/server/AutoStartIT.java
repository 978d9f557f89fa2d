package dev.magus.cli.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code magus run} starts the user's server by itself in a login session, and nowhere else, as
 * a person runs it ({@code bin/magus}): the first run runs here and starts the server, the second
 * is forwarded to it, and the idle timeout stops it. The login session is a runtime dir of the
 * test's and the user's own {@code HOME} (the rule wants the home of the user database), with
 * every XDG dir magus writes to in the test's temp dir, so nothing is written in the real home.
 */
class AutoStartIT {
    @TempDir
    Path root;
    static final int IDLE = 12;
    Path runtime;
    Path ws;
    Map<String, String> env;

    @BeforeEach
    void setUp() throws IOException {
        ServerProcesses.assumeLinux();
        runtime = Files.createDirectory(root.resolve("runtime"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        ws = Files.createDirectories(root.resolve("ws"));
        env = BinMagus.env(root, Path.of(System.getProperty("user.home")), runtime);
        for (String xdg : List.of("XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME")) {
            env.put(xdg, Files.createDirectories(root.resolve(xdg.toLowerCase())).toString());
        }
        // Long enough for the first run and the start to end before it, on a busy machine.
        env.put("MAGUS_SERVER_IDLE_TIMEOUT", IDLE + "s");
    }

    @Test
    void theFirstRunStartsTheServerTheSecondIsForwardedAndTheIdleTimeoutStopsIt() throws Exception {
        firstStartsSecondForwardedIdleStops("the Java command line (no socket: bin/magus goes to it)");
    }

    @Test
    void aStaleSocketIsHandedByTheNativeFrontToTheJavaClientWhichStartsIt() throws Exception {
        Path client = Path.of("target", "native", "magus-client");
        if (!Files.isExecutable(client)) {
            String why = "native case skipped: " + client + " was not built (the build found no C compiler, cc)";
            System.err.println(why);
            org.junit.jupiter.api.Assumptions.assumeTrue(false, why);
        }
        // What a killed server leaves: a socket file nobody listens on. bin/magus (the native client)
        // finds nobody there and hands the run to libexec/magus-jvm, whose Java client starts the server.
        Path dir = Files.createDirectory(runtime.resolve("magus"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        try (ServerSocketChannel stale = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            stale.bind(UnixDomainSocketAddress.of(dir.resolve("server.sock")));
        }
        firstStartsSecondForwardedIdleStops("the native front, then the Java client (a stale socket)");
    }

    private void firstStartsSecondForwardedIdleStops(String path) throws Exception {
        Path socket = runtime.resolve("magus/server.sock");
        try {
            BinMagus.Ran first = BinMagus.run(ws, env, "run", "--", "sh", "-c", "printf first");
            assertThat(first.status()).as(first.out()).isZero();
            assertThat(first.out()).as(path).contains("magus: started the magus server in the background (log "
                    + runtime.resolve("magus/server.log") + "); this run runs here").endsWith("first");
            long pid = awaitServer();

            // -q: the forwarded run says what a local one says, the "unconfined" notice too; here only the child's bytes.
            BinMagus.Ran second = BinMagus.run(ws, env, "run", "-q", "--", "sh", "-c", "printf second");
            assertThat(second.status()).as(second.out()).isZero();
            assertThat(second.out()).isEqualTo("second");
            BinMagus.Ran status = BinMagus.run(ws, env, "server", "status");
            assertThat(status.out()).contains("(pid " + pid + ",").containsPattern(
                    "magus\\.server\\.forwarded\\{outcome=started\\}\\s+1\\b").contains("idle timeout: " + IDLE + "s; stops at");

            // No connection for the idle timeout: the server stops by itself.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(IDLE + 30);
            while ((Files.exists(socket) || ServerProcesses.isServer(pid)) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(socket).as("gone after the idle timeout").doesNotExist();
            assertThat(ServerProcesses.isServer(pid)).as("the server exited").isFalse();
            assertThat(Files.readString(runtime.resolve("magus/server.log"))).contains("no connection for " + IDLE + "s");
        } finally {
            BinMagus.run(ws, env, "server", "stop");
        }
    }

    /** The server's pid, once its socket and token are there. */
    private long awaitServer() throws Exception {
        Path socket = runtime.resolve("magus/server.sock");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.exists(runtime.resolve("magus/server.sock.token"))) {
                BinMagus.Ran status = BinMagus.run(ws, env, "server", "status");
                Matcher m = Pattern.compile("\\(pid (\\d+),").matcher(status.out());
                if (status.status() == 0 && m.find()) {
                    return Long.parseLong(m.group(1));
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no server came up on " + socket + "; log: "
                + (Files.exists(runtime.resolve("magus/server.log")) ? Files.readString(runtime.resolve("magus/server.log")) : "none"));
    }

    @Test
    void aLocalRunStartsNothingInALoginSessionWithOrWithoutAStaleSocket() throws Exception {
        BinMagus.Ran ran = BinMagus.run(ws, env, "run", "--local", "-q", "--", "sh", "-c", "printf here");
        assertThat(ran.status()).as(ran.out()).isZero();
        assertThat(ran.out()).isEqualTo("here");
        Path dir = Files.createDirectories(runtime.resolve("magus"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        try (ServerSocketChannel stale = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            stale.bind(UnixDomainSocketAddress.of(dir.resolve("server.sock")));
        }
        ran = BinMagus.run(ws, env, "run", "-q", "--local", "--", "sh", "-c", "printf again");
        assertThat(ran.status()).as(ran.out()).isZero();
        assertThat(ran.out()).isEqualTo("again");
        Thread.sleep(1000); // what would have started in the background has had time to
        assertThat(dir.resolve("server.sock.token")).as("no server wrote its token").doesNotExist();
        assertThat(ServerProcesses.startedHere()).as("no server process").isEmpty();
    }

    @Test
    void nothingStartsWithoutARuntimeDirWithAThrowawayHomeOrWithMagusServerOff() throws Exception {
        Map<String, String> noRuntime = new HashMap<>(env);
        noRuntime.remove("XDG_RUNTIME_DIR");
        Map<String, String> throwaway = new HashMap<>(env);
        throwaway.put("HOME", Files.createDirectories(root.resolve("fake-home")).toString());
        Map<String, String> off = new HashMap<>(env);
        off.put("MAGUS_SERVER", "off");
        for (Map<String, String> e : List.of(noRuntime, throwaway, off)) {
            BinMagus.Ran ran = BinMagus.run(ws, e, "run", "-q", "--", "sh", "-c", "printf here");
            assertThat(ran.status()).as(ran.out()).isZero();
            assertThat(ran.out()).isEqualTo("here");
        }
        Thread.sleep(1000); // what would have started in the background has had time to
        assertThat(runtime.resolve("magus/server.sock")).doesNotExist();
        assertThat(root.resolve("xdg_cache_home/magus-run/server.sock")).doesNotExist();
        assertThat(root.resolve("fake-home/.cache/magus-run/server.sock")).doesNotExist();
        assertThat(ServerProcesses.startedHere()).as("no server process").isEmpty();
    }
}
