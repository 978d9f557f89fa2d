package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.server.protocol.Frame;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code magus run --allow/--pass} forwarded to the server: the frames carry them, the server's run honours them. */
class ForwardedGrantsTest {
    @TempDir
    Path root;
    Fixture f;
    Path outside;

    @BeforeEach
    void start() throws Exception {
        int abi = LandlockProbe.kernel().abi();
        String why = "forwarded grants test skipped: Landlock ABI " + abi + " here, required mode needs 3";
        if (abi < 3) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(abi >= 3, why);
        f = new Fixture(root);
        f.yaml("sandbox:\n  mode: required\n");
        outside = Files.createDirectories(f.home.resolve("out"));
        f.env.put("FOO", "foo-value");
    }

    @AfterEach
    void stop() {
        if (f != null) {
            f.close();
        }
    }

    /** {@code magus run --allow A... --pass P... -- sh -c script}. */
    private Frame.Command submit(List<String> allow, List<String> pass, String script) {
        List<String> options = new java.util.ArrayList<>();
        allow.forEach(a -> options.addAll(List.of("--allow", a)));
        pass.forEach(p -> options.addAll(List.of("--pass", p)));
        return f.run(f.env, options, "sh", "-c", script);
    }

    @Test
    void allowAndPassReachTheServersRun() throws Exception {
        String script = "echo \"FOO=[$FOO]\"; echo made > " + outside.resolve("a.txt");
        Fixture.Result without = f.forward(submit(List.of(), List.of(), script));
        assertThat(without.status()).isNotZero();
        assertThat(without.out()).contains("FOO=[]");
        assertThat(without.codes()).contains("MGS2002");
        assertThat(outside.resolve("a.txt")).doesNotExist();

        // Relative to the run's working directory, the client's.
        Fixture.Result with = f.forward(submit(List.of("../home/out:rw"), List.of("FOO"), script));
        assertThat(with.status()).as(with.out()).isZero();
        assertThat(with.out()).contains("FOO=[foo-value]");
        assertThat(Files.readString(outside.resolve("a.txt"))).isEqualTo("made\n");
    }

    @Test
    void aBadValueIsTheRunsMgs2004() throws Exception {
        Fixture.Result r = f.forward(submit(List.of("x:bogus"), List.of(), "echo ran"));
        assertThat(r.status()).isEqualTo(125);
        assertThat(r.codes()).containsExactly("MGS2004");
        assertThat(r.out()).doesNotContain("ran");
    }
}
