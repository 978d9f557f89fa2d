package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.control.ControlFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A dangerous key a run added to {@code .git/config} with git itself is put back key by key;
 * the section header git wrote for it goes too when the file had no such section before, and
 * stays when it had. git reads the file afterwards.
 */
class EmptiedConfigSectionTest {
    private final AuditCaches caches = new AuditCaches();
    Path dir;
    Path ws;
    Path config;

    @BeforeEach
    void make() throws Exception {
        dir = Files.createTempDirectory("magus-emptied-section-").toRealPath();
        ws = Files.createDirectories(dir.resolve("ws"));
        git("init", "-q");
        config = ws.resolve(".git/config");
    }

    @AfterEach
    void remove() throws IOException {
        Restorer.removeEntry(dir);
    }

    private String git(String... args) throws IOException, InterruptedException {
        return RealGit.run(dir, ws, args);
    }

    private ControlFileAudit.Report run(String... configArgs) throws Exception {
        ControlFileAudit.Baseline b = ControlFileAudit.of(ControlFiles.of(ws, List.of(ws.resolve(".git"))), Readers.java(),
                caches).before();
        git(configArgs);
        return b.after(ControlFilesAction.RESTORE);
    }

    @Test
    void aSectionTheRunAddedGoesWithItsLastKey() throws Exception {
        String before = Files.readString(config);
        ControlFileAudit.Report r = run("config", "include.path", "x");
        assertThat(r.changed()).isTrue();
        assertThat(Files.readString(config)).doesNotContainIgnoringCase("[include]").isEqualTo(before);
        assertThat(git("config", "--list")).doesNotContain("include.");
    }

    @Test
    void aSectionTheFileHadBeforeStays() throws Exception {
        Files.writeString(config, Files.readString(config) + "[include]\n");
        String before = Files.readString(config);
        ControlFileAudit.Report r = run("config", "include.path", "x");
        assertThat(r.changed()).isTrue();
        assertThat(Files.readString(config)).isEqualTo(before);
        assertThat(git("config", "--list")).doesNotContain("include.");
    }

    @Test
    void aSectionTheRunAddedStaysWhileAKeptKeyIsInIt() throws Exception {
        ControlFileAudit.Baseline b = ControlFileAudit.of(ControlFiles.of(ws, List.of(ws.resolve(".git"))), Readers.java(),
                caches).before();
        git("config", "remote.origin.url", "/srv/x.git");
        git("config", "remote.origin.uploadpack", "sh -c evil");
        assertThat(b.after(ControlFilesAction.RESTORE).changed()).isTrue();
        assertThat(Files.readString(config)).contains("[remote \"origin\"]").doesNotContain("uploadpack");
        assertThat(git("config", "--list")).contains("remote.origin.url=/srv/x.git").doesNotContain("uploadpack");
    }
}
