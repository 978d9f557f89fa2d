package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A clean run has nothing to say beyond the child's output: an MGS2003 whose dropped set the
 * workspace's last run saw, and an MGS2006 about a manager whose shims the run does not start,
 * are marked quiet (shown at -v only); both are still events. Real children, a fake home.
 */
class QuietByDefaultTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml("sandbox:\n  mode: required\n");
        t.env.put("SOME_TOKEN_FOR_DROP", "x");
    }

    private Optional<Diagnostic> only(Code code, String... argv) {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, argv).build());
        List<RunEvent> events = TestHost.events(run);
        run.result().block(TestHost.DEADLINE);
        List<Diagnostic> found = events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                .filter(d -> d.code() == code).toList();
        assertThat(found).as("one %s event in %s", code, TestHost.codes(events)).hasSize(1);
        return found.stream().findFirst();
    }

    private static boolean quiet(Diagnostic d) {
        return "true".equals(d.details().get(DetailKey.QUIET.key()));
    }

    @Test
    void mgs2003IsSaidOnTheFirstRunAndWhenTheDroppedSetChangesAndIsAlwaysAnEvent() {
        assertThat(only(Code.MGS2003, "true")).hasValueSatisfying(d -> assertThat(quiet(d)).isFalse());
        assertThat(only(Code.MGS2003, "true")).as("the same set again").hasValueSatisfying(d -> assertThat(quiet(d)).isTrue());
        t.env.put("ANOTHER_DROPPED", "y");
        assertThat(only(Code.MGS2003, "true")).as("a changed set").hasValueSatisfying(d -> assertThat(quiet(d)).isFalse());
        assertThat(only(Code.MGS2003, "true")).hasValueSatisfying(d -> assertThat(quiet(d)).isTrue());
    }

    @Test
    void mgs2006IsQuietUnlessTheRunStartsAShimOfThatManager() throws IOException {
        Path shims = Files.createDirectories(t.home.resolve(".pyenv/shims"));
        Path python = TestHost.script(shims, "python3", "#!/bin/sh\necho shim\n");
        t.env.put("PYENV_ROOT", t.home.resolve(".pyenv").toString());
        t.env.put("PATH", shims + ":" + t.env.get("PATH"));
        // The shims may run (else the exec is refused first, MGS2007, which names pyenv itself).
        t.yaml("sandbox:\n  mode: required\n  allow:\n    - {path: ~/.pyenv, mode: rx}\n");
        assertThat(only(Code.MGS2006, "true")).hasValueSatisfying(d -> assertThat(quiet(d)).isTrue());
        assertThat(only(Code.MGS2006, python.toString())).hasValueSatisfying(d -> assertThat(quiet(d)).isFalse());
    }
}
