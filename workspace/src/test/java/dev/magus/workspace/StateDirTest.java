package dev.magus.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StateDirTest {
    private final Path home = Path.of("/home/someone");

    @Test
    void theCarriedVariableWinsThenXdgThenTheDefault() {
        assertThat(StateDir.of(Map.of("MAGUS_STATE_DIR", "/carried", "XDG_STATE_HOME", "/xdg"), home).dir()).isEqualTo(Path.of("/carried"));
        assertThat(StateDir.of(Map.of("XDG_STATE_HOME", "/xdg"), home).dir()).isEqualTo(Path.of("/xdg/magus"));
        assertThat(StateDir.of(Map.of(), home).dir()).isEqualTo(home.resolve(".local/state/magus"));
        assertThat(StateDir.of(Map.of("MAGUS_STATE_DIR", "relative", "XDG_STATE_HOME", "also/relative"), home).dir())
                .as("relative values are ignored").isEqualTo(home.resolve(".local/state/magus"));
    }

    @Test
    void theStoreAndTheMarkersLiveUnderIt() {
        StateDir s = new StateDir(Path.of("/s/magus"));
        assertThat(s.jobsDb()).isEqualTo(Path.of("/s/magus/jobs.db"));
        Path a = s.checkouts(Path.of("/c1/magus"));
        assertThat(a.getParent()).isEqualTo(Path.of("/s/magus/checkouts"));
        assertThat(a.getFileName().toString()).matches("[0-9a-f]{32}");
        assertThat(s.checkouts(Path.of("/c1/./magus/"))).as("normalized").isEqualTo(a);
        assertThat(s.checkouts(Path.of("/c2/magus"))).isNotEqualTo(a);
    }

    /** The remembered answer holds only for the very same variables and home (HostFacts.stateDirOf's memo). */
    @Test
    void theRememberedStateDirFollowsEveryInput() {
        StateDir a = StateDir.of(Map.of("XDG_STATE_HOME", "/xdg"), home);
        assertThat(StateDir.of(Map.of("XDG_STATE_HOME", "/xdg"), home)).isSameAs(a);
        assertThat(StateDir.of(Map.of("XDG_STATE_HOME", "/xdg2"), home).dir()).isEqualTo(Path.of("/xdg2/magus"));
        assertThat(StateDir.of(Map.of("XDG_STATE_HOME", "/xdg", "MAGUS_STATE_DIR", "/c"), home).dir()).isEqualTo(Path.of("/c"));
        assertThat(StateDir.of(Map.of(), home).dir()).isEqualTo(Path.of("/home/someone/.local/state/magus"));
        assertThat(StateDir.of(Map.of(), Path.of("/home/other")).dir()).isEqualTo(Path.of("/home/other/.local/state/magus"));
        assertThat(StateDir.of(Map.of("XDG_STATE_HOME", "relative"), Path.of("/home/other")).dir())
                .isEqualTo(Path.of("/home/other/.local/state/magus"));
        assertThat(StateDir.of(Map.of("XDG_STATE_HOME", "/xdg"), home).dir()).isEqualTo(Path.of("/xdg/magus"));
    }
}
