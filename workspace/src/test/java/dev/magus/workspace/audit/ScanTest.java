package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.control.ControlFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeTry;

/**
 * The I/O half on real trees, with the pure-Java reader (the native one is held equal to it
 * in landlock's tests): the walk records exactly what {@link ControlFiles#match} says of every
 * path, and the scan after a change finds every created, changed and removed control entry
 * without listing unchanged directories.
 */
class ScanTest {
    /** The audits' walks kept from run to run, as one process keeps them. */
    private final AuditCaches caches = new AuditCaches();
    Path ws;

    @BeforeTry
    void makeWorkspace() throws IOException {
        ws = Files.createTempDirectory("magus-scan-test-").toRealPath();
    }

    @AfterTry
    void removeWorkspace() throws IOException {
        Restorer.removeEntry(ws);
    }

    private ControlFileAudit audit() {
        return ControlFileAudit.of(ControlFiles.of(ws, List.of(ws.resolve(".git"))), Readers.java(), caches);
    }

    /**
     * What match() says is a control path, and everything beneath a control directory other than
     * a git dir itself: the walk records such a directory whole (a {@code config} or
     * {@code tasks.json} that is a directory keeps its contents under the audit), where match()
     * is asked of one path and names only the entry.
     */
    private Set<Path> everyControlPath() {
        ControlFiles files = ControlFiles.of(ws, List.of(ws.resolve(".git")));
        try (Stream<Path> all = Files.walk(ws)) {
            return all.filter(p -> !p.equals(ws)).filter(p -> files.match(p).isPresent() || beneathWhole(files, p))
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }


    private boolean beneathWhole(ControlFiles files, Path p) {
        for (Path a = p.getParent(); a != null && a.startsWith(ws) && !a.equals(ws); a = a.getParent()) {
            boolean whole = files.match(a).filter(e -> !e.equals(ControlFiles.GIT) && !e.equals(ControlFiles.GIT_DIR))
                    .isPresent();
            if (whole && Files.isDirectory(a, LinkOption.NOFOLLOW_LINKS)) {
                return true;
            }
        }
        return false;
    }

    @Provide
    Arbitrary<List<String>> paths() {
        Arbitrary<String> name = Arbitraries.of("magus.yaml", "Magus.yaml", ".git", "hooks", "config", "info", "objects",
                "modules", "worktrees", "config.worktree", ".vscode", "tasks.json", ".claude", ".envrc", ".mise",
                "lefthook.yml", "src", "node_modules", "refs", "pre-commit");
        return name.list().ofMinSize(1).ofMaxSize(5).map(l -> String.join("/", l)).list().ofMinSize(1).ofMaxSize(12);
    }

    /** Makes each path a file, its ancestors directories; a path whose ancestor is already a file is left out. */
    private void plant(List<String> paths) throws IOException {
        for (String rel : paths) {
            Path p = ws.resolve(rel);
            boolean blocked = false;
            for (Path a = p.getParent(); a != null && a.startsWith(ws) && !a.equals(ws); a = a.getParent()) {
                if (Files.exists(a, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(a, LinkOption.NOFOLLOW_LINKS)) {
                    blocked = true;
                }
            }
            if (blocked || Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            Files.createDirectories(p.getParent());
            Files.writeString(p, rel);
        }
    }

    @Property(tries = 60)
    void theWalkRecordsExactlyWhatMatchSaysOfEveryPath(@ForAll("paths") List<String> paths) throws IOException {
        plant(paths);
        Set<Path> walked = new TreeSet<>(audit().before().snapshot().entries().keySet());
        assertThat(walked).isEqualTo(everyControlPath());
    }

    @Property(tries = 40)
    void theScanAfterFindsWhatWasPlantedAndNothingElse(@ForAll("paths") List<String> before,
            @ForAll("paths") List<String> during) throws IOException {
        plant(before);
        ControlFileAudit.Baseline baseline = audit().before();
        plant(during);
        Files.writeString(ws.resolve("src-not-control.txt"), "x");
        Set<Path> now = new TreeSet<>(baseline.current().entries().keySet());
        assertThat(now).isEqualTo(everyControlPath());
        // And from the process's last walk, as the next run starts.
        Set<Path> next = new TreeSet<>(audit().before().snapshot().entries().keySet());
        assertThat(next).isEqualTo(everyControlPath());
    }

    /** Found by the property in CI: a submodule's {@code config} that is a directory is recorded whole. */
    @Example
    void aControlFileEntryThatIsADirectoryIsRecordedWhole() throws IOException {
        plant(List.of(".git/modules/magus.yaml/config/magus.yaml"));
        Set<Path> walked = new TreeSet<>(audit().before().snapshot().entries().keySet());
        assertThat(walked).contains(ws.resolve(".git/modules/magus.yaml/config/magus.yaml"));
        assertThat(walked).isEqualTo(everyControlPath());
    }

    /** A bare repository of any name: told by its listing, its hooks and config recorded, before, after and on a rescan. */
    @Example
    void aBareRepositoryIsToldByItsListingAndItsHooksAndConfigAreRecorded() throws IOException {
        Path bare = Files.createDirectories(ws.resolve("deep/remote.git"));
        Files.writeString(bare.resolve("HEAD"), "ref: refs/heads/main\n");
        Files.createDirectories(bare.resolve("objects/ab"));
        Files.writeString(bare.resolve("objects/ab/cdef"), "x");
        Files.createDirectories(bare.resolve("refs/heads"));
        Files.writeString(bare.resolve("config"), "[core]\n\tbare = true\n");
        Files.createDirectories(bare.resolve("hooks"));
        Files.writeString(bare.resolve("hooks/update.sample"), "#!/bin/sh\n");
        Files.createDirectories(ws.resolve("plain/objects"));
        Files.createDirectories(ws.resolve("plain/refs"));
        Files.createDirectories(ws.resolve("plain/hooks"));
        Files.writeString(ws.resolve("plain/hooks/post-receive"), "not a repository: no HEAD");
        ControlFileAudit.Baseline baseline = audit().before();
        assertThat(baseline.snapshot().entries()).containsKeys(bare.resolve("config"), bare.resolve("hooks"),
                bare.resolve("hooks/update.sample"));
        assertThat(baseline.snapshot().entries().get(bare.resolve("config")).entry()).isEqualTo(ControlFiles.GIT_DIR_CONFIG);
        assertThat(baseline.snapshot().entries()).doesNotContainKeys(bare.resolve("objects/ab/cdef"),
                ws.resolve("plain/hooks/post-receive"));

        Files.writeString(bare.resolve("hooks/post-receive"), "#!/bin/sh\nevil\n");
        Path made = Files.createDirectories(ws.resolve("made.git"));
        Files.writeString(made.resolve("HEAD"), "ref: refs/heads/main\n");
        Files.createDirectories(made.resolve("objects"));
        Files.createDirectories(made.resolve("refs"));
        Files.createDirectories(made.resolve("hooks"));
        Files.writeString(made.resolve("hooks/pre-receive"), "#!/bin/sh\nevil\n");
        // A created directory is one change, what is beneath it folded in.
        List<Change> changes = Comparison.between(baseline.snapshot(), baseline.current());
        assertThat(changes).extracting(Change::path).containsExactlyInAnyOrder(bare.resolve("hooks/post-receive"),
                made.resolve("hooks"));

        // The next run starts from this process's walk, a rescan: the bare repositories stay known.
        ControlFileAudit.Baseline next = audit().before();
        assertThat(next.snapshot().entries()).containsKeys(bare.resolve("hooks/post-receive"), made.resolve("hooks/pre-receive"));
        Files.writeString(bare.resolve("hooks/update"), "#!/bin/sh\nevil\n");
        assertThat(Comparison.between(next.snapshot(), next.current())).extracting(Change::path)
                .containsExactly(bare.resolve("hooks/update"));
    }

    @Example
    void aDirectoryWhoseMtimeIsPutBackStillCounts() throws IOException {
        Path d = Files.createDirectories(ws.resolve("a/b"));
        FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 3_600_000);
        Files.setLastModifiedTime(d, old);
        ControlFileAudit.Baseline baseline = audit().before();
        Files.writeString(d.resolve(".envrc"), "evil");
        Files.setLastModifiedTime(d, old);
        List<Change> changes = Comparison.between(baseline.snapshot(), baseline.current());
        assertThat(changes).singleElement().isInstanceOfSatisfying(Change.Created.class,
                c -> assertThat(c.path()).isEqualTo(d.resolve(".envrc")));
    }

    @Example
    void aLinkPlantedOverAControlFileIsReplacedNotWrittenThrough() throws IOException {
        Path outside = Files.createTempFile("magus-scan-outside-", ".txt");
        try {
            Files.writeString(outside, "untouched");
            Path envrc = Files.writeString(ws.resolve(".envrc"), "export A=1\n");
            ControlFileAudit.Baseline baseline = audit().before();
            Files.delete(envrc);
            Files.createSymbolicLink(envrc, outside);
            ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
            assertThat(report.changes()).singleElement().isInstanceOfSatisfying(Change.Changed.class,
                    c -> assertThat(c.aspects()).containsExactly(Change.Aspect.TYPE));
            assertThat(report.diagnostics()).singleElement()
                    .satisfies(d -> assertThat(d.details()).containsEntry("restored", "true"));
            assertThat(Files.isSymbolicLink(envrc)).isFalse();
            assertThat(Files.readString(envrc)).isEqualTo("export A=1\n");
            assertThat(Files.readString(outside)).isEqualTo("untouched");
        } finally {
            Files.deleteIfExists(outside);
        }
    }

    @Example
    void nothingIsWrittenBeneathADirectoryTheChildTurnedIntoALink() throws IOException {
        Path outside = Files.createTempDirectory("magus-scan-outside-");
        try {
            Path sub = Files.createDirectories(ws.resolve("sub"));
            Files.writeString(sub.resolve(".envrc"), "export A=1\n");
            ControlFileAudit.Baseline baseline = audit().before();
            Restorer.removeEntry(sub);
            Files.createSymbolicLink(sub, outside);
            ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
            assertThat(report.changed()).isTrue();
            assertThat(report.diagnostics()).singleElement().satisfies(d -> {
                assertThat(d.details()).containsEntry("restored", "false");
                assertThat(d.message()).contains("NOT restored");
            });
            try (Stream<Path> s = Files.list(outside)) {
                assertThat(s.toList()).isEmpty();
            }
        } finally {
            Restorer.removeEntry(outside);
        }
    }

    @Example
    void modeChangesAreRestoredToo() throws IOException {
        Path hook = Files.createDirectories(ws.resolve(".git/hooks")).resolve("pre-commit");
        Files.writeString(hook, "#!/bin/sh\n");
        Files.setAttribute(hook, "unix:mode", 0644);
        ControlFileAudit.Baseline baseline = audit().before();
        Files.setAttribute(hook, "unix:mode", 0755);
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertThat(report.changes()).singleElement().isInstanceOfSatisfying(Change.Changed.class,
                c -> assertThat(c.aspects()).containsExactly(Change.Aspect.MODE));
        assertThat(((Number) Files.getAttribute(hook, "unix:mode")).intValue() & 07777).isEqualTo(0644);
    }
}
