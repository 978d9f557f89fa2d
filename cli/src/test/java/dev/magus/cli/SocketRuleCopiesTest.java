package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.socket.SocketDir;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the user's server listens is decided by {@link SocketDir}; two copies of the rule must
 * exist where no Java runs: bin/magus (which picks the client only when the socket is there) and
 * the native client. Each is run here for the same environments and must name the same socket.
 */
class SocketRuleCopiesTest {
    @TempDir
    Path root;

    /** The environments the rule tells apart (absolute or not, each fallback in turn). */
    private List<Map<String, String>> environments() {
        String r = root.resolve("runtime").toString();
        String c = root.resolve("cache").toString();
        String h = root.resolve("home").toString();
        return List.of(
                Map.of("XDG_RUNTIME_DIR", r, "XDG_CACHE_HOME", c, "HOME", h),
                Map.of("XDG_RUNTIME_DIR", "relative", "XDG_CACHE_HOME", c, "HOME", h),
                Map.of("XDG_CACHE_HOME", c, "HOME", h),
                Map.of("XDG_CACHE_HOME", "relative", "HOME", h),
                Map.of("HOME", h),
                Map.of("HOME", "relative"),
                Map.of());
    }

    private static long uid() throws IOException {
        return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
    }

    @Test
    void binMagusNamesSocketDirsSocket() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self")), "socket rule test skipped: no /proc");
        String script = Files.readString(Path.of("..", "libexec", "magus-jvm"));
        Matcher m = Pattern.compile("(?ms)^( *)if \\[\\[ -n \"\\$\\{MAGUS_SERVER_ADDRESS:-}\" ]]; then\\n.*?^\\1fi\\n")
                .matcher(script);
        assertThat(m.find()).as("libexec/magus-jvm's choice of the socket").isTrue();
        for (Map<String, String> env : environments()) {
            ProcessBuilder pb = new ProcessBuilder("bash", "-c", m.group() + "printf %s \"$sock\"");
            pb.environment().clear();
            pb.environment().putAll(env);
            Process p = pb.start();
            String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).isZero();
            assertThat(said).as("libexec/magus-jvm with %s", env).isEqualTo(SocketDir.forUser(env, uid()).socket().toString());
        }
    }

    @Test
    void theNativeClientConnectsToSocketDirsSocket() throws Exception {
        Path client = Path.of("..", "server", "target", "native", "magus-client");
        if (!Files.isExecutable(client)) {
            String why = "native client case skipped: " + client + " was not built (the build found no C compiler, cc)";
            System.err.println(why);
            Assumptions.assumeTrue(false, why);
        }
        long uid = uid();
        for (Map<String, String> env : environments()) {
            Path socket = SocketDir.forUser(env, uid).socket();
            if (!socket.startsWith(root)) {
                continue; // the last fallback is the machine's /tmp/magus-<uid>: not a test's to take
            }
            Files.createDirectories(socket.getParent(), PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            Files.writeString(socket.resolveSibling("server.sock.token"), "t0ken");
            try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                listener.bind(UnixDomainSocketAddress.of(socket));
                Map<String, String> e = new LinkedHashMap<>(env);
                e.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
                // Its fallback (the full command line) is `sh -c 'exit 42'`.
                ProcessBuilder pb = new ProcessBuilder(client.toAbsolutePath().toString(), "3", "sh", "-c", "exit 42", "run",
                        "--", "true").redirectErrorStream(true);
                pb.environment().clear();
                pb.environment().putAll(e);
                Process p = pb.start();
                listener.configureBlocking(false);
                SocketChannel accepted = null;
                for (int i = 0; i < 200 && accepted == null && p.isAlive(); i++) {
                    accepted = listener.accept();
                    Thread.sleep(25);
                }
                if (accepted == null) {
                    accepted = listener.accept();
                }
                assertThat(accepted).as("the native client with %s connects to %s", env, socket).isNotNull();
                accepted.close();
                assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
                // Closed before its welcome, nothing ran there: it falls back to the full command line.
                assertThat(p.exitValue()).as("a server that closed before its welcome ran nothing: the client falls back")
                        .isEqualTo(42);
            } finally {
                Files.deleteIfExists(socket);
            }
        }
    }
}
