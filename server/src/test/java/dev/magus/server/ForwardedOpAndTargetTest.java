package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.server.protocol.Frame;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code magus run --op/--target/--allow-host} and {@code magus target NAME} cross the real
 * Unix socket (protocol version 3): the server's run resolves them as a local run does, and a
 * bad value is that run's MGS2004 naming the flag, never a run without it.
 */
class ForwardedOpAndTargetTest {
    @TempDir
    Path root;
    Fixture f;
    Path fixtures;

    @BeforeEach
    void start() throws Exception {
        int abi = LandlockProbe.kernel().abi();
        String why = "forwarded op/target test skipped: Landlock ABI " + abi + " here, required mode needs 3";
        if (abi < 3) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(abi >= 3, why);
        f = new Fixture(root);
        fixtures = Files.createDirectories(root.resolve("fixtures"));
        f.env.put("FIXTURES_DIR", fixtures.toString());
        Files.createDirectories(f.workspace.resolve("api"));
        Files.createDirectories(f.workspace.resolve("web"));
        f.yaml("""
                sandbox:
                  mode: required
                projects:
                  - dir: api
                    targets:
                      where:
                        run: [sh, -c, 'pwd; echo "args=$*"; echo x > "$FIXTURES_DIR/written"', sh]
                        writes: true
                        sandbox:
                          allow: [{env: FIXTURES_DIR, mode: rw}]
                          env: {passthrough: [FIXTURES_DIR]}
                  - dir: web
                """);
    }

    @AfterEach
    void stop() {
        if (f != null) {
            f.close();
        }
    }

    /** {@code magus run --op/--target/--allow-host ... -- argv} in the project dir web. */
    private Frame.Command submit(List<String> argv, Optional<String> op, Optional<String> target, List<String> hosts) {
        List<String> options = new java.util.ArrayList<>();
        op.ifPresent(o -> options.addAll(List.of("--op", o)));
        target.ifPresent(t -> options.addAll(List.of("--target", t)));
        hosts.forEach(h -> options.addAll(List.of("--allow-host", h)));
        return Fixture.words(f.env, f.workspace.resolve("web").toString(), options, argv.toArray(String[]::new));
    }


    @Test
    void aTargetRunsInItsProjectDirWithItsLayerAndTheArgumentsAppended() throws Exception {
        Fixture.Result r = f.forward(submit(List.of("one", "two"), Optional.empty(), Optional.of("where"), List.of()));
        assertThat(r.status()).as(r.out()).isZero();
        assertThat(r.out()).isEqualTo(f.workspace.resolve("api") + "\nargs=one two\n");
        assertThat(fixtures.resolve("written")).as("the target's own layer grants FIXTURES_DIR").hasContent("x");
    }

    @Test
    void withoutTheTargetTheSameWriteIsRefused() throws Exception {
        Fixture.Result r = f.forward(submit(List.of("sh", "-c", "echo x > \"$FIXTURES_DIR/written\""), Optional.empty(),
                Optional.empty(), List.of()));
        assertThat(r.status()).isNotZero();
        assertThat(fixtures.resolve("written")).doesNotExist();
    }

    @Test
    void anUnknownTargetOrOpOrABadHostIsTheServersRunsRefusalNamingTheFlag() throws Exception {
        Fixture.Result target = f.forward(submit(List.of(), Optional.empty(), Optional.of("deploy"), List.of()));
        Fixture.Result op = f.forward(submit(List.of("true"), Optional.of("cobol"), Optional.empty(), List.of()));
        Fixture.Result host = f.forward(submit(List.of("true"), Optional.empty(), Optional.empty(), List.of("not a host!")));
        for (Fixture.Result r : List.of(target, op, host)) {
            assertThat(r.status()).isEqualTo(125);
            assertThat(r.codes()).contains("MGS2004");
        }
        assertThat(op.lines()).anySatisfy(l -> assertThat(l).contains(" [--op"));
        assertThat(host.lines()).anySatisfy(l -> assertThat(l).contains(" [--allow-host"));
    }

    @Test
    void aKnownOpRuns() throws Exception {
        Fixture.Result r = f.forward(submit(List.of("sh", "-c", "echo op-ran"), Optional.of("python"), Optional.empty(),
                List.of("example.org")));
        assertThat(r.status()).as(r.out() + r.lines()).isZero();
        assertThat(r.out()).isEqualTo("op-ran\n");
    }
}
