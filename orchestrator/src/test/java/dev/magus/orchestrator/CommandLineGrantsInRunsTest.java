package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14, one-run grants ({@code magus run --allow PATH[:MODE] --pass VAR}) through the
 * pipeline, with real confined children under required mode and a fake home.
 */
class CommandLineGrantsInRunsTest {
    @TempDir
    Path root;
    TestHost t;
    Path outside;

    @BeforeEach
    void setUp() throws IOException {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml("sandbox:\n  mode: required\n");
        outside = Files.createDirectories(t.home.resolve("out"));
        t.env.put("FOO", "foo-value");
    }

    private record Outcome(RunResult result, List<RunEvent> events) {
        String text() {
            return TestHost.text(events);
        }

        List<Code> codes() {
            return TestHost.codes(events);
        }

        List<String> stdout() {
            return TestHost.lines(events, RunEvent.Stream.STDOUT);
        }
    }

    private Outcome run(Path cwd, Consumer<RunRequest.Builder> flags, String script) {
        RunRequest.Builder b = RunRequest.builder(cwd, "sh", "-c", script);
        flags.accept(b);
        Run run = t.orchestrator().submit(b.build());
        List<RunEvent> events = TestHost.events(run);
        return new Outcome(run.result().block(TestHost.DEADLINE), events);
    }

    @Test
    void allowRwLetsTheChildWriteThereAndWithoutItTheWriteIsDenied() throws IOException {
        String script = "echo made > " + outside.resolve("a.txt");
        Outcome denied = run(t.workspace, b -> { }, script);
        assertThat(denied.result().status()).as(denied.text()).isNotZero();
        assertThat(denied.codes()).contains(Code.MGS2002);
        assertThat(outside.resolve("a.txt")).doesNotExist();

        Outcome allowed = run(t.workspace, b -> b.allow(outside + ":rw"), script);
        assertThat(allowed.result().status()).as(allowed.text()).isZero();
        assertThat(allowed.codes()).doesNotContain(Code.MGS2002);
        assertThat(Files.readString(outside.resolve("a.txt"))).isEqualTo("made\n");
    }

    @Test
    void aGrantWithoutAModeIsReadOnly() throws IOException {
        Files.writeString(outside.resolve("in.txt"), "readable\n");
        Outcome o = run(t.workspace, b -> b.allow(outside.toString()),
                "cat " + outside.resolve("in.txt") + "; echo x > " + outside.resolve("b.txt"));
        assertThat(o.stdout()).as(o.text()).contains("readable");
        assertThat(o.codes()).contains(Code.MGS2002);
        assertThat(outside.resolve("b.txt")).doesNotExist();
    }

    @Test
    void aRelativePathIsRelativeToTheWorkingDirectory() throws IOException {
        // The workspace root is the working directory; ../home/out is the fake home's out.
        Outcome o = run(t.workspace, b -> b.allow("../home/out:rw"), "echo rel > ../home/out/c.txt");
        assertThat(o.result().status()).as(o.text()).isZero();
        assertThat(Files.readString(outside.resolve("c.txt"))).isEqualTo("rel\n");
    }

    @Test
    void passPassesTheVariableAndWithoutItItIsScrubbed() {
        Outcome without = run(t.workspace, b -> { }, "echo \"FOO=[$FOO]\"");
        assertThat(without.stdout()).as(without.text()).containsExactly("FOO=[]");
        Outcome with = run(t.workspace, b -> b.pass("FOO"), "echo \"FOO=[$FOO]\"");
        assertThat(with.stdout()).as(with.text()).containsExactly("FOO=[foo-value]");
    }

    @Test
    void aBadValueRefusesTheRunUnderEveryModeNamingTheFlag() {
        for (String mode : List.of("required", "off")) {
            t.yaml("sandbox:\n  mode: " + mode + "\n");
            Outcome o = run(t.workspace, b -> b.allow(outside + ":bogus"), "echo ran");
            assertThat(o.result().status()).as(mode).isEqualTo(125);
            assertThat(o.stdout()).isEmpty();
            Diagnostic d = o.events().stream().filter(e -> e instanceof RunEvent.Diag)
                    .map(e -> ((RunEvent.Diag) e).diagnostic()).findFirst().orElseThrow();
            assertThat(d.code()).isEqualTo(Code.MGS2004);
            assertThat(d.source()).isEqualTo("--allow");
            Outcome pass = run(t.workspace, b -> b.pass("not-a-name"), "echo ran");
            assertThat(pass.result().status()).as(mode).isEqualTo(125);
            assertThat(pass.codes()).containsExactly(Code.MGS2004);
        }
    }

    /**
     * A grant magus turns down by rule ($HOME as a whole, or an ancestor of it) is refused like
     * a malformed one: the run is not started with less than asked, and the line names the flag
     * and says why (found by running toolchains as a new user).
     */
    @Test
    void aGrantOfTheWholeHomeIsRefusedNamingTheFlagNotIgnored() {
        for (String allow : List.of("~:rw", t.home + ":ro", "/")) {
            Outcome o = run(t.workspace, b -> b.allow(allow), "echo ran");
            assertThat(o.result().status()).as(allow + ": " + o.text()).isEqualTo(125);
            assertThat(o.stdout()).as("nothing ran").isEmpty();
            Diagnostic d = o.events().stream().filter(e -> e instanceof RunEvent.Diag)
                    .map(e -> ((RunEvent.Diag) e).diagnostic()).filter(x -> x.code() == Code.MGS2004).findFirst()
                    .orElseThrow(() -> new AssertionError(allow + ": no MGS2004 in " + o.text()));
            assertThat(d.source()).isEqualTo("--allow");
            assertThat(d.message()).contains("grants nothing").contains("home directory");
        }
        Outcome fine = run(t.workspace, b -> b.allow(outside + ":ro"), "echo ran");
        assertThat(fine.result().status()).as(fine.text()).isZero();
    }
}
