package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.orchestrator.Orchestrator;
import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import dev.magus.server.socket.SocketDir;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerLifecycleTest {
    @TempDir
    Path root;

    @Test
    void startsPrivateAndAnswersStatusThenStops() throws Exception {
        try (Fixture f = new Fixture(root)) {
            assertThat(f.dir.dir()).isEqualTo(f.home.resolve(".cache/magus-run"));
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.dir.dir()))).isEqualTo("rwx------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.dir.tokenFile()))).isEqualTo("rw-------");
            assertThat(Files.readString(f.dir.tokenFile()).trim()).hasSize(64).isEqualTo(f.server.token());
            assertThat(MagusServer.running(f.server.socket())).isTrue();

            try (ServerClient c = f.client()) {
                c.send(new Frame.StatusQuery());
                Frame.ToClient status = c.read();
                assertThat(status).isInstanceOf(Frame.Status.class);
                assertThat(((Frame.Status) status).pid()).isEqualTo(ProcessHandle.current().pid());
                assertThat(((Frame.Status) status).counters()).containsKey("magus.server.connections");
                assertThat(((Frame.Status) status).metrics()).as("no scrape served").isEmpty();
            }
            f.server.servesMetricsAt("127.0.0.1:9464");
            try (ServerClient c = f.client()) {
                c.send(new Frame.StatusQuery());
                assertThat(c.read()).isInstanceOfSatisfying(Frame.Status.class,
                        s -> assertThat(s.metrics()).contains("127.0.0.1:9464"));
            }
            try (ServerClient c = f.client()) {
                c.send(new Frame.Stop());
                assertThat(c.read()).isInstanceOf(Frame.Stopping.class);
            }
            // As `magus server stop` does: wait for the socket to go; the token is gone by then.
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
            while (Files.exists(f.dir.socket()) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(f.dir.socket()).doesNotExist();
            assertThat(f.dir.tokenFile()).as("gone no later than the socket").doesNotExist();
            f.server.awaitStop();
        }
    }

    @Test
    void aSecondServerFindsTheLiveOneAndAStaleSocketIsReplaced() throws Exception {
        String firstToken;
        SocketDir dir;
        try (Fixture f = new Fixture(root)) {
            dir = f.dir;
            firstToken = f.server.token();
            try (Orchestrator second = Orchestrator.builder(f.host()).build()) {
                assertThatThrownBy(() -> MagusServer.start(f.dir, f.host(), second, f.registry, MagusServer.Settings.DEFAULTS))
                        .isInstanceOf(MagusServer.AlreadyRunning.class);
            }
            assertThat(MagusServer.running(f.server.socket())).as("the live server is left alone").isTrue();
            assertThat(f.server.token()).isEqualTo(Files.readString(f.dir.tokenFile()).trim());
        }
        // A socket file nobody listens on: what a killed server leaves.
        try (ServerSocketChannel stale = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            stale.bind(UnixDomainSocketAddress.of(dir.socket()));
        }
        assertThat(Files.exists(dir.socket(), LinkOption.NOFOLLOW_LINKS)).isTrue();
        try (Fixture again = new Fixture(root)) {
            assertThat(MagusServer.running(again.server.socket())).isTrue();
            assertThat(again.server.token()).as("a fresh token at each start").isNotEqualTo(firstToken);
            assertThat(again.forward(again.run("true")).status()).isZero();
        }
    }

    @Test
    void aLooserDirectoryIsRefusedNotRepaired() throws Exception {
        Path dir = Files.createDirectories(root.resolve("run"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThatThrownBy(() -> new SocketDir(dir).prepare(Fixture.uid()))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.code()).isEqualTo(Code.MGS2004);
                    assertThat(e.getMessage()).contains("0700");
                });
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwxr-xr-x");
        assertThatThrownBy(() -> new SocketDir(dir).prepare(Fixture.uid() + 1))
                .isInstanceOf(SandboxException.class).hasMessageContaining("not to you");
    }

    @Test
    void theDirectoryIsTheRuntimeDirElseTheCacheElseTmpNeverTmpdir() {
        assertThat(SocketDir.forUser(Map.of("XDG_RUNTIME_DIR", "/run/user/7", "HOME", "/h", "TMPDIR", "/w"), 7).dir())
                .isEqualTo(Path.of("/run/user/7/magus"));
        assertThat(SocketDir.forUser(Map.of("XDG_CACHE_HOME", "/c", "HOME", "/h", "TMPDIR", "/w"), 7).dir())
                .isEqualTo(Path.of("/c/magus-run"));
        assertThat(SocketDir.forUser(Map.of("HOME", "/h", "TMPDIR", "/w"), 7).dir()).isEqualTo(Path.of("/h/.cache/magus-run"));
        assertThat(SocketDir.forUser(Map.of("HOME", "relative", "XDG_RUNTIME_DIR", "rel", "TMPDIR", "/w"), 7).dir())
                .isEqualTo(Path.of("/tmp/magus-7"));
    }
}
