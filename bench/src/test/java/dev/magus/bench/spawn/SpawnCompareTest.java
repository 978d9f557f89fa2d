package dev.magus.bench.spawn;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpawnCompareTest {

    @Test
    void percentilesAreNearestRank() {
        long[] sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        assertThat(SpawnCompare.Stats.percentile(sorted, 50)).isEqualTo(5);
        assertThat(SpawnCompare.Stats.percentile(sorted, 90)).isEqualTo(9);
        assertThat(SpawnCompare.Stats.of(new long[]{10, 1, 7}).median()).isEqualTo(7);
    }

    @Test
    void bwrapGetsTheSameFootprintAsTheLandlockRules(@TempDir Path ws) throws Exception {
        var argv = SpawnCompare.bwrapArgv(Path.of("/usr/bin/bwrap"), Path.of("/usr/bin/true"), ws.toRealPath());
        var rules = SpawnCompare.comparableRules(ws.toRealPath());

        assertThat(argv).containsSequence("--bind", ws.toRealPath().toString(), ws.toRealPath().toString())
                .containsSequence("--dev-bind", "/dev/null", "/dev/null")
                .containsSequence("--ro-bind", "/etc", "/etc")
                .endsWith("/usr/bin/true");
        assertThat(rules).extracting(r -> r.path().toString())
                .contains("/usr", "/etc", "/dev/null", ws.toRealPath().toString());
        // Nothing writable but the workspace and /dev/null, in either.
        assertThat(rules).filteredOn(r -> r.mode().has(dev.magus.policy.fs.Access.WRITE))
                .extracting(r -> r.path().toString()).containsExactlyInAnyOrder("/dev/null", ws.toRealPath().toString());
        assertThat(argv).filteredOn(a -> a.equals("--bind")).hasSize(1);
    }
}
