package dev.magus.orchestrator.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs in one workspace audit and restore one at a time: one lock per real workspace root. */
class AuditLockTest {
    @TempDir
    Path tmp;

    @Test
    void oneWorkspaceReachedByTwoPathsHasOneLockAndTwoWorkspacesTwo() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path other = Files.createDirectories(tmp.resolve("other"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), ws);
        assertThat(RunChecks.lockFor(link)).isSameAs(RunChecks.lockFor(ws))
                .isSameAs(RunChecks.lockFor(ws.resolve("sub/..")));
        assertThat(RunChecks.lockFor(other)).isNotSameAs(RunChecks.lockFor(ws));
    }
}
