package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.control.ControlFiles;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which names the walk asks about, and where in a git dir it skips git's data. */
class ControlNamesTest {
    static final Path WS = Path.of("/ws");
    static final Path OUTSIDE_GIT = Path.of("/repo/.git/worktrees/wt");
    final ControlNames names = new ControlNames(ControlFiles.of(WS, List.of(OUTSIDE_GIT)));

    @Test
    void gitItselfIsOnlyItsOwnNodeAndOtherDirectoriesAreWhole() {
        assertThat(names.control(WS.resolve(".git")).orElseThrow().wholeSubtree()).isFalse();
        assertThat(names.control(OUTSIDE_GIT).orElseThrow().wholeSubtree()).isFalse();
        assertThat(names.control(WS.resolve(".git/hooks")).orElseThrow().wholeSubtree()).isTrue();
        assertThat(names.control(WS.resolve("x/.claude")).orElseThrow().wholeSubtree()).isTrue();
        assertThat(names.classify(WS.resolve("src/index.js"), "index.js")).isEmpty();
        assertThat(ControlNames.Place.GIT_DIR.child("OBJECTS")).isEmpty();
        assertThat(ControlNames.Place.GIT_DIR.child("worktrees")).contains(ControlNames.Place.INSIDE);
        assertThat(ControlNames.Place.INSIDE.child("objects")).contains(ControlNames.Place.INSIDE);
        assertThat(ControlNames.Place.MODULES.child("objects")).contains(ControlNames.Place.SUBMODULE);
        assertThat(ControlNames.Place.SUBMODULE.child("refs")).isEmpty();
    }

    /**
     * The candidate set is computed once per class (it used to be per run): it must still be
     * exactly what the entries of the binding layer give, and every component of every entry
     * but the git-dir placeholders must be one, in any ASCII case.
     */
    @Test
    void candidatesAreOnceForAllExactlyTheEntriesComponents() {
        assertThat(ControlNames.CANDIDATES).isEqualTo(ControlNames.candidates(ControlFiles.entries()));
        for (String e : ControlFiles.entries()) {
            for (String part : e.split("/")) {
                if (!part.isEmpty() && !part.startsWith("<")) {
                    assertThat(names.candidate(part)).as(part).isTrue();
                    assertThat(names.candidate(part.toUpperCase(java.util.Locale.ROOT))).as(part).isTrue();
                }
            }
        }
        assertThat(names.candidate("<git dir>")).isFalse();
        assertThat(names.candidate("index.js")).isFalse();
        assertThat(ControlNames.candidates(List.of(".git/hooks/", "<git dir>/config", "magus.yaml")))
                .containsExactlyInAnyOrder(".git", "hooks", "config", "magus.yaml");
    }
}
