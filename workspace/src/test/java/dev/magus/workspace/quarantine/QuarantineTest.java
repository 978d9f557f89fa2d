package dev.magus.workspace.quarantine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.workspace.StateDir;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuarantineTest {
    @TempDir
    Path dir;

    private static int mode(Path p) throws Exception {
        return ((Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS)) & 07777;
    }

    @Test
    void aTreeKeptThenRemovedComesBackByteForByteWithItsModes() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Quarantine q = Quarantine.in(new StateDir(dir.resolve("state")));
        Path hooks = Files.createDirectories(ws.resolve(".git/hooks/extra"));
        Path hook = Files.write(hooks.resolve("run"), new byte[] {0, 1, (byte) 0xff, '\n'});
        Files.setAttribute(hook, "unix:mode", 04751);
        Files.createSymbolicLink(hooks.resolve("link"), Path.of("../../elsewhere"));
        Files.setAttribute(hooks, "unix:mode", 0750);

        Quarantine.Box box = q.box("0123abcd");
        Quarantine.Prepared p = box.keep(hooks);
        assertThat(p.payload()).isEqualTo(Kept.Payload.DIRECTORY);
        assertThat(p.bytes()).isEqualTo(4);
        Trees.remove(hooks);
        Kept k = box.record(p, "MGS2002", "created", "a directory");
        assertThat(k.left()).isEqualTo(Fingerprint.ABSENT);
        assertThat(mode(q.root())).isEqualTo(0700);

        Manifest.Run run = q.read("0123abcd").orElseThrow();
        assertThat(run.entries()).containsExactly(k);
        assertThat(q.restore(run.entries().get(0), false)).isInstanceOf(Quarantine.Restored.Done.class);
        assertThat(Files.readAllBytes(hook)).containsExactly(0, 1, 0xff, '\n');
        assertThat(mode(hook)).isEqualTo(04751);
        assertThat(mode(hooks)).isEqualTo(0750);
        assertThat(Files.readSymbolicLink(hooks.resolve("link"))).isEqualTo(Path.of("../../elsewhere"));
    }

    @Test
    void restoringRefusesWhatChangedSinceUnlessForced() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Quarantine q = Quarantine.in(new StateDir(dir.resolve("state")));
        Path yaml = Files.writeString(ws.resolve("magus.yaml"), "sandbox: {mode: off}\n");
        Quarantine.Box box = q.box("r1");
        Quarantine.Prepared p = box.keep(yaml);
        Files.writeString(yaml, "sandbox: {mode: required}\n");
        Kept k = box.record(p, "MGS2002", "changed", "content");

        Files.writeString(yaml, "edited by the user\n");
        Quarantine.Restored r = q.restore(k, false);
        assertThat(r).isInstanceOfSatisfying(Quarantine.Restored.Refused.class,
                f -> assertThat(f.why()).contains("changed since", "--force"));
        assertThat(Files.readString(yaml)).isEqualTo("edited by the user\n");
        assertThat(q.restore(k, true)).isInstanceOf(Quarantine.Restored.Done.class);
        assertThat(Files.readString(yaml)).isEqualTo("sandbox: {mode: off}\n");
    }

    /** As the audit takes out a file the run created: kept, removed, recorded. */
    private static Kept takenOut(Quarantine.Box box, Path file) throws Exception {
        Quarantine.Prepared p = box.keep(file);
        Files.delete(file);
        return box.record(p, "MGS2002", "created", "a file");
    }

    @Test
    void restoringRefusesWhenTheDestinationsParentWasReplacedByALinkToOutsideEvenWhenForced() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("pre-commit"), "the user's own\n");
        Quarantine q = Quarantine.in(new StateDir(dir.resolve("state")));
        Path hooks = Files.createDirectories(ws.resolve(".git/hooks"));
        Path hook = Files.writeString(hooks.resolve("pre-commit"), "#!/bin/sh\nplanted\n");
        Kept k = takenOut(q.box("r3"), hook);

        // A later process swaps .git/hooks for a link out of the workspace.
        Files.delete(hooks);
        Files.createSymbolicLink(hooks, outside);
        for (boolean force : new boolean[] {false, true}) {
            assertThat(q.restore(k, force)).as("force %s", force).isInstanceOfSatisfying(Quarantine.Restored.Refused.class,
                    r -> assertThat(r.why()).contains(hooks.toString(), "symbolic link", "nothing is written through it"));
        }
        assertThat(outside.resolve("pre-commit")).hasContent("the user's own");
        try (var s = Files.list(outside)) {
            assertThat(s.map(x -> x.getFileName().toString())).containsExactly("pre-commit");
        }

        // Higher up, and with the entry's own directory missing: nothing is made through the link.
        Files.delete(hooks);
        Files.delete(ws.resolve(".git"));
        Files.createSymbolicLink(ws.resolve(".git"), outside);
        assertThat(q.restore(k, true)).isInstanceOfSatisfying(Quarantine.Restored.Refused.class,
                r -> assertThat(r.why()).contains(ws.resolve(".git").toString(), "symbolic link"));
        assertThat(outside.resolve("hooks")).doesNotExist();

        // Put right again, it restores.
        Files.delete(ws.resolve(".git"));
        Files.createDirectories(hooks);
        assertThat(q.restore(k, false)).isInstanceOf(Quarantine.Restored.Done.class);
        assertThat(hook).hasContent("#!/bin/sh\nplanted");
    }

    @Test
    void aForcedRestoreMakesAMissingDirectoryBeneathRealOnes() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Quarantine q = Quarantine.in(new StateDir(dir.resolve("state")));
        Path deep = Files.createDirectories(ws.resolve("a/b"));
        Path f = Files.writeString(deep.resolve("f"), "kept\n");
        Kept k = takenOut(q.box("r4"), f);
        Files.delete(deep);
        Files.delete(ws.resolve("a"));
        assertThat(q.restore(k, false)).isInstanceOfSatisfying(Quarantine.Restored.Refused.class,
                r -> assertThat(r.why()).contains("is gone", "--force"));
        assertThat(q.restore(k, true)).isInstanceOf(Quarantine.Restored.Done.class);
        assertThat(f).hasContent("kept");
    }

    @Test
    void anEntryWithoutPayloadIsRestoredByRemovingWhatTheAuditPutBack() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Quarantine q = Quarantine.in(new StateDir(dir.resolve("state")));
        Path envrc = ws.resolve(".envrc");
        Quarantine.Box box = q.box("r2");
        Quarantine.Prepared p = box.keep(envrc);
        assertThat(p.payload()).isEqualTo(Kept.Payload.NONE);
        Files.writeString(envrc, "export A=1\n");
        Kept k = box.record(p, "MGS2002", "removed", "");
        assertThat(q.restore(k, false)).isInstanceOf(Quarantine.Restored.Done.class);
        assertThat(envrc).doesNotExist();
    }

    @Test
    void retentionPrunesByAgeThenBySizeOldestFirstAndSparesTheCurrentRun() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path state = dir.resolve("state");
        Quarantine q = Quarantine.in(new StateDir(state));
        Path f = Files.write(ws.resolve("f"), new byte[1000]);
        for (String id : List.of("old", "mid", "new", "current")) {
            Quarantine.Box b = q.box(id);
            b.record(b.keep(f), "MGS2002", "changed", "content");
        }
        // Backdate the manifests' headers: old 40 days, mid 3 days, new 2 days, current now.
        Instant now = Instant.now();
        backdate(q, "old", now.minus(Duration.ofDays(40)));
        backdate(q, "mid", now.minus(Duration.ofDays(3)));
        backdate(q, "new", now.minus(Duration.ofDays(2)));

        List<Quarantine.Pruned> pruned = q.prune(new Retention(Duration.ofDays(30), 2500), now, Set.of("current"));
        assertThat(pruned).extracting(Quarantine.Pruned::runId).containsExactly("old", "mid");
        assertThat(pruned.get(0).why()).contains("older than 30 days");
        assertThat(pruned.get(1).why()).contains("more than 2500 bytes");
        assertThat(q.runs()).extracting(Manifest.Run::runId).containsExactly("new", "current");

        assertThat(q.prune(new Retention(Duration.ofDays(30), 0), now, Set.of("current")))
                .extracting(Quarantine.Pruned::runId).containsExactly("new");
        assertThat(q.runs()).extracting(Manifest.Run::runId).containsExactly("current");
    }

    private static void backdate(Quarantine q, String id, Instant when) throws Exception {
        Path m = q.root().resolve(id).resolve("manifest");
        String text = Files.readString(m);
        String rest = text.substring(text.indexOf('\n') + 1);
        Files.writeString(m, Manifest.header(id, when) + rest);
    }

    @Test
    void theManifestEscapesWhatWouldBreakALine() {
        Kept k = new Kept(3, "r", Instant.parse("2026-01-02T03:04:05Z"), "MGS2002", "keys", "a\tb\nc\\d",
                Kept.Payload.FILE, 12, "file 644 ab", Path.of("/w/we\tird\nname"));
        String text = Manifest.header("r", Instant.parse("2026-01-02T03:04:05Z")) + Manifest.line(k);
        assertThat(Manifest.parse(text).orElseThrow().entries()).containsExactly(k);
        assertThat(Manifest.parse("magus-quarantine\t2\tr\tx\n")).isEmpty();
    }
}
