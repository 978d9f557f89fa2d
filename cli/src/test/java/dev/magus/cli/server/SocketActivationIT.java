package dev.magus.cli.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * systemd's socket activation, through {@code systemd-socket-activate}, which listens on the
 * socket and starts the server at the first connection with the socket as descriptor 3, as
 * {@code magus.socket} does: the first run waits for the server's token and is forwarded, by
 * either client; the server serves the socket it was given, and leaves it in place when it stops.
 */
class SocketActivationIT {
    static final Path ACTIVATE = Path.of("/usr/bin/systemd-socket-activate");

    @TempDir
    Path root;
    Path runtime;
    Path ws;
    Map<String, String> env;

    @BeforeEach
    void setUp() throws IOException {
        ServerProcesses.assumeLinux();
        if (!Files.isExecutable(ACTIVATE)) {
            String why = "socket activation test skipped: " + ACTIVATE + " is not installed (systemd)";
            System.err.println(why);
            Assumptions.assumeTrue(false, why);
        }
        runtime = Files.createDirectory(root.resolve("runtime"));
        Files.createDirectory(runtime.resolve("magus"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        ws = Files.createDirectories(root.resolve("ws"));
        // A throwaway HOME: nothing here starts a server by itself, only the activation does.
        env = BinMagus.env(root, Files.createDirectories(root.resolve("home")), runtime);
    }

    /** {@code systemd-socket-activate -l SOCKET bin/magus server}, with the test's environment (it passes none by itself). */
    private Process activate(Path socket) throws IOException {
        List<String> command = new ArrayList<>(List.of(ACTIVATE.toString(), "-l", socket.toString()));
        for (String name : env.keySet()) {
            command.addAll(List.of("-E", name));
        }
        command.addAll(List.of(BinMagus.path(), "server", "--idle-timeout=2m"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(root.resolve("activate-" + socket.getFileName() + ".log").toFile()).directory(ws.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.exists(socket) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(socket).as("systemd-socket-activate listens").exists();
        return p;
    }

    @Test
    void theNativeClientsFirstRunStartsTheServerAndIsForwarded() throws Exception {
        firstRunActivates(env);
    }

    @Test
    void theJavaClientsFirstRunStartsTheServerAndIsForwarded() throws Exception {
        Map<String, String> java = new HashMap<>(env);
        java.put("MAGUS_CLIENT", "java");
        firstRunActivates(java);
    }

    private void firstRunActivates(Map<String, String> client) throws Exception {
        Path socket = runtime.resolve("magus/server.sock");
        Process activation = activate(socket);
        try {
            Thread.sleep(300);
            assertThat(runtime.resolve("magus/server.sock.token")).as("nothing started before a connection").doesNotExist();
            assertThat(ServerProcesses.isServer(activation.pid())).isFalse();

            BinMagus.Ran first = BinMagus.run(ws, client, "run", "-q", "--", "sh", "-c", "printf activated");
            assertThat(first.status()).as(first.out()).isZero();
            assertThat(first.out()).isEqualTo("activated");
            assertThat(ServerProcesses.isServer(activation.pid())).as("systemd-socket-activate became the server").isTrue();
            BinMagus.Ran status = BinMagus.run(ws, env, "server", "status");
            assertThat(status.out()).contains("(pid " + activation.pid() + ",").containsPattern(
                    "magus\\.server\\.forwarded\\{outcome=started\\}\\s+1\\b");

            assertThat(BinMagus.run(ws, env, "server", "stop").out()).contains("stopped");
            assertThat(activation.waitFor(30, TimeUnit.SECONDS)).as("the server exited").isTrue();
            assertThat(socket).as("systemd's socket stays, to start the next server").exists();
            assertThat(runtime.resolve("magus/server.sock.token")).doesNotExist();
        } finally {
            activation.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aSocketElsewhereThanTheUsersIsRefusedNamingBoth() throws Exception {
        Path other = runtime.resolve("magus/other.sock");
        Process activation = activate(other);
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(other));
            assertThat(activation.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(activation.exitValue()).isNotZero();
            assertThat(Files.readString(root.resolve("activate-other.sock.log"))).contains("MGS2004").contains(other.toString())
                    .contains(runtime.resolve("magus/server.sock").toString());
        } finally {
            activation.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
