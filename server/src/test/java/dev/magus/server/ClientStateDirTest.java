package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.client.ServerClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server never takes a state dir from a client's environment: a client that
 * names another one ({@code MAGUS_STATE_DIR}, {@code XDG_STATE_HOME}, another {@code HOME}) is
 * declined and runs the work itself; the server's own must be the user's and writable by nobody
 * else, or no run is served. Over the real Unix socket; mode off, so no Landlock is needed:
 * what is checked is whether the server started the child at all.
 */
class ClientStateDirTest {
    @TempDir
    Path root;
    Fixture f;
    Path marker;
    Path serverState;

    @BeforeEach
    void start() throws Exception {
        f = new Fixture(root);
        marker = root.resolve("ran");
        serverState = f.host().stateDir().dir();
    }

    @AfterEach
    void stop() {
        if (f != null) {
            f.close();
        }
    }

    private Fixture.Result touch(Map<String, String> env) throws Exception {
        return f.forward(f.run(env, List.of(), "touch", marker.toString()));
    }

    private Map<String, String> env(String name, String value) {
        Map<String, String> env = new LinkedHashMap<>(f.env);
        env.put(name, value);
        return env;
    }

    @Test
    void theServersOwnStateDirServesTheRun() throws Exception {
        Files.createDirectories(serverState);
        Fixture.Result r = touch(env("MAGUS_STATE_DIR", serverState.toString()));
        assertThat(r.status()).isZero();
        assertThat(marker).exists();
    }

    @Test
    void aClientNamingAnotherStateDirIsDeclinedAndTheServerRunsNothing() throws Exception {
        Path elsewhere = Files.createDirectories(root.resolve("empty-state"));
        for (Map<String, String> env : java.util.List.of(env("MAGUS_STATE_DIR", elsewhere.toString()),
                env("XDG_STATE_HOME", elsewhere.toString()), env("HOME", elsewhere.toString()))) {
            Fixture.Result r = touch(env);
            assertThat(r.outcome()).isInstanceOfSatisfying(Forwarding.Outcome.Declined.class,
                    d -> assertThat(d.frame().message()).contains(serverState.toString()).contains("running it here instead"));
            assertThat(marker).as("the server did not run it").doesNotExist();
        }
        assertThat(elsewhere).isEmptyDirectory();
        assertThat(f.registry.get("magus.server.forwarded").tag("outcome", "declined").counter().count()).isEqualTo(3.0);
        assertThat(f.registry.find("magus.server.forwarded").tag("outcome", "started").counter()).as("no run started").isNull();
    }

    @Test
    void aStateDirOthersMayWriteRefusesEveryRun() throws Exception {
        Files.createDirectories(serverState);
        Files.setPosixFilePermissions(serverState, PosixFilePermissions.fromString("rwxrwxrwx"));
        Fixture.Result r = touch(f.env);
        assertThat(r.status()).isEqualTo(125);
        assertThat(r.codes()).containsExactly("MGS2004");
        assertThat(r.lines()).singleElement().satisfies(l -> assertThat(l)
                .contains(serverState.toString()).contains("writable by its group or by others"));
        assertThat(marker).doesNotExist();

        Files.setPosixFilePermissions(serverState, PosixFilePermissions.fromString("rwx------"));
        assertThat(touch(f.env).status()).isZero();
        assertThat(marker).exists();
    }

    @Test
    void aStateDirThatIsALinkRefusesEveryRun() throws Exception {
        Path real = Files.createDirectories(root.resolve("real-state"));
        Files.createDirectories(serverState.getParent());
        Files.createSymbolicLink(serverState, real);
        Fixture.Result r = touch(f.env);
        assertThat(r.status()).isEqualTo(125);
        assertThat(r.lines()).singleElement().satisfies(l -> assertThat(l).contains("is a symbolic link"));
        assertThat(marker).doesNotExist();
    }
}
