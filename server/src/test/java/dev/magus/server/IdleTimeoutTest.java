package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.server.client.ServerClient;
import dev.magus.server.lifecycle.IdleTimeout;
import dev.magus.server.lifecycle.IdleWatch;
import dev.magus.server.protocol.Frame;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server stops by itself after its idle timeout with no connection, over a real socket. */
class IdleTimeoutTest {
    @TempDir
    Path root;

    @Test
    void stopsAfterTheTimeoutWithNoConnectionNotWhileOneIsOpenNorBecauseOfAStatusQuery() throws Exception {
        long timeout = 1500;
        try (Fixture f = new Fixture(root, Optional.empty(), new IdleTimeout(Duration.ofMillis(timeout)))) {
            // A run, then a connection held open for twice the timeout: the server stays.
            assertThat(f.forward(f.run("true")).status()).isZero();
            try (ServerClient held = f.client()) {
                Thread.sleep(2 * timeout);
                assertThat(MagusServer.running(f.dir.socket())).as("a connection is open").isTrue();
                Frame.Status s = status(f);
                assertThat(s.idle()).hasValueSatisfying(i -> {
                    assertThat(i.timeoutMillis()).isEqualTo(timeout);
                    assertThat(i.stopsAtMillis()).as("busy: no stop time").isZero();
                    assertThat(i.connections()).isEqualTo(1);
                });
            }
            long closed = System.currentTimeMillis();
            Thread.sleep(timeout / 3);
            // Asked while idle: when it stops, counted from the last connection, which the query does not move.
            Frame.Status s = status(f);
            assertThat(s.idle()).hasValueSatisfying(i -> {
                assertThat(i.connections()).isZero();
                assertThat(i.stopsAtMillis()).isBetween(closed - 200 + timeout, closed + 200 + timeout);
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (Files.exists(f.dir.socket()) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            long stopped = System.currentTimeMillis();
            assertThat(f.dir.socket()).as("stopped by itself").doesNotExist();
            assertThat(f.dir.tokenFile()).doesNotExist();
            assertThat(stopped - closed).as("after the timeout, not a status query's later one")
                    .isBetween(timeout - 100, timeout + 1500);
            f.server.awaitStop();
        }
    }

    @Test
    void neverKeepsItUntilStopped() throws Exception {
        try (Fixture f = new Fixture(root, Optional.empty(), IdleTimeout.NEVER)) {
            Thread.sleep(300);
            assertThat(status(f).idle()).hasValueSatisfying(i -> {
                assertThat(i.timeoutMillis()).isZero();
                assertThat(i.stopsAtMillis()).isZero();
            });
            assertThat(MagusServer.running(f.dir.socket())).isTrue();
        }
    }

    @Test
    void theSettingIsParsedOrRefusedNamingItsOrigin() {
        assertThat(IdleTimeout.of(Optional.empty(), Map.of())).isEqualTo(IdleTimeout.DEFAULT);
        assertThat(IdleTimeout.DEFAULT.spelling()).isEqualTo("30m");
        assertThat(IdleTimeout.of(Optional.empty(), Map.of("MAGUS_SERVER_IDLE_TIMEOUT", "90")).value()).hasSeconds(90);
        assertThat(IdleTimeout.of(Optional.of("2h"), Map.of("MAGUS_SERVER_IDLE_TIMEOUT", "90")).spelling()).isEqualTo("2h");
        assertThat(IdleTimeout.parse("1500ms", "t").spelling()).isEqualTo("1500ms");
        assertThat(IdleTimeout.parse("never", "t").never()).isTrue();
        assertThat(IdleTimeout.parse("0", "t").never()).isTrue();
        assertThatThrownBy(() -> IdleTimeout.of(Optional.empty(), Map.of("MAGUS_SERVER_IDLE_TIMEOUT", "soon")))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.code()).isEqualTo(Code.MGS2004);
                    assertThat(e.getMessage()).contains("MAGUS_SERVER_IDLE_TIMEOUT").contains("soon");
                });
        assertThatThrownBy(() -> IdleTimeout.of(Optional.of("-5m"), Map.of())).hasMessageContaining("--idle-timeout");
    }

    @Test
    void theWatchCountsFromTheLastActiveConnection() {
        AtomicLong now = new AtomicLong(1000);
        IdleWatch w = new IdleWatch(new IdleTimeout(Duration.ofMillis(100)), now::get);
        assertThat(w.stopsAt(0)).hasValue(1100);
        w.opened();
        w.opened();
        assertThat(w.remainingMillis()).isEmpty();
        now.set(5000);
        assertThat(w.closed(true)).isFalse();
        assertThat(w.expired()).isFalse();
        assertThat(w.closed(true)).isTrue();
        assertThat(w.stopsAt(0)).hasValue(5100);
        w.opened();
        now.set(5050);
        assertThat(w.stopsAt(1)).as("besides the query's own").hasValue(5100);
        assertThat(w.closed(false)).as("a status query").isTrue();
        assertThat(w.remainingMillis()).hasValue(50);
        now.set(5100);
        assertThat(w.expired()).isTrue();
    }

    private static Frame.Status status(Fixture f) throws Exception {
        try (ServerClient c = f.client()) {
            c.send(new Frame.StatusQuery());
            return (Frame.Status) c.read();
        }
    }
}
