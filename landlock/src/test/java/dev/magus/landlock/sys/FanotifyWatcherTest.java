package dev.magus.landlock.sys;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.watch.ChangeWatcher;
import dev.magus.policy.watch.ChangeWatcher.Drained;
import dev.magus.policy.watch.ChangeWatcher.Event;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fanotify watcher against a real child that changes a real tree (needs root: a filesystem mark). */
class FanotifyWatcherTest {
    @TempDir
    Path tmp;
    Path t;
    final FanotifyWatcher watcher = new FanotifyWatcher();

    @BeforeAll
    static void linuxOnly() {
        KernelLookupHost.assumeLinuxAndLoadNatives();
    }

    @BeforeEach
    void realTemp() throws IOException {
        t = tmp.toRealPath();
    }

    private ChangeWatcher.Watching start() {
        ChangeWatcher.Started s = watcher.start(List.of(t));
        Assumptions.assumeTrue(s instanceof ChangeWatcher.Watching,
                () -> "fanotify refused here (this test needs root): " + ((ChangeWatcher.Refused) s).reason());
        return (ChangeWatcher.Watching) s;
    }

    private static void child(Path dir, String script) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", script).directory(dir.toFile()).inheritIO().start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
    }

    private static void has(List<Event> events, Path dir, String name, long bits) {
        assertThat(events).as("%s in %s with 0x%x", name, dir, bits)
                .anyMatch(e -> e.directory().equals(dir) && e.name().equals(name) && (e.mask() & bits) == bits);
    }

    @Test
    void isInstalledAsTheServiceAndWorksAsRoot() {
        assertThat(ServiceLoader.load(ChangeWatcher.class).stream().map(ServiceLoader.Provider::type))
                .contains(FanotifyWatcher.class);
        try (ChangeWatcher.Watching w = start()) {
            assertThat(w.drain()).isInstanceOf(ChangeWatcher.Events.class);
        }
    }

    @Test
    void aChildsNamesAreReportedByTheirDirectory() throws Exception {
        Files.createDirectories(t.resolve("a/b"));
        Files.writeString(t.resolve("a/hook"), "x");
        ChangeWatcher.Watching w = start();
        child(t, "touch a/b/.envrc && mkdir a/new && mv a/hook a/b/renamed && chmod 700 a/b && rm a/b/renamed"
                + " && echo more >> a/b/.envrc");
        Drained d = w.drain();
        assertThat(d).isInstanceOf(ChangeWatcher.Events.class);
        List<Event> events = ((ChangeWatcher.Events) d).events();
        // Events of one name merge (touch: FAN_CREATE | FAN_ATTRIB); other processes' come too.
        has(events, t.resolve("a/b"), ".envrc", FanotifyWatcher.FAN_CREATE);
        has(events, t.resolve("a"), "new", FanotifyWatcher.FAN_CREATE | FanotifyRecords.FAN_ONDIR);
        has(events, t.resolve("a"), "hook", FanotifyWatcher.FAN_MOVED_FROM);
        has(events, t.resolve("a/b"), "renamed", FanotifyWatcher.FAN_MOVED_TO);
        has(events, t.resolve("a/b"), "renamed", FanotifyWatcher.FAN_DELETE);
        // chmod of a directory: its own event, or its name in its parent.
        has(events, t.resolve("a/b"), ".", FanotifyWatcher.FAN_ATTRIB | FanotifyRecords.FAN_ONDIR);
        // Closing after the drain: draining again is a doubt, never an empty "nothing changed".
        assertThat(w.drain()).isInstanceOf(ChangeWatcher.Doubt.class);
        w.close();
    }

    @Test
    void aRemovedDirectoryIsPassedOverAndItsRemovalIsInItsParent() throws Exception {
        Files.createDirectories(t.resolve("gone/deep"));
        ChangeWatcher.Watching w = start();
        child(t, "touch gone/deep/x && rm -r gone");
        Drained d = w.drain();
        assertThat(d).isInstanceOf(ChangeWatcher.Events.class);
        List<Event> events = ((ChangeWatcher.Events) d).events();
        has(events, t, "gone", FanotifyWatcher.FAN_DELETE | FanotifyRecords.FAN_ONDIR);
        assertThat(events).noneMatch(e -> e.directory().startsWith(t.resolve("gone")));
    }

    @Test
    void aLiveDirectoryNamedLikeADeletedOneIsStillReported() throws Exception {
        Path odd = Files.createDirectories(t.resolve("x (deleted)"));
        ChangeWatcher.Watching w = start();
        child(odd, "touch .envrc");
        Drained d = w.drain();
        assertThat(d).isInstanceOf(ChangeWatcher.Events.class);
        has(((ChangeWatcher.Events) d).events(), odd, ".envrc", FanotifyWatcher.FAN_CREATE);
    }

    @Test
    void anOverflowedQueueIsADoubt() throws Exception {
        Files.createDirectories(t.resolve("many"));
        ChangeWatcher.Watching w = start();
        // More names than the kernel's default queue (16384 events) holds.
        child(t.resolve("many"), "seq 1 20000 | xargs touch");
        Drained d = w.drain();
        assertThat(d).isInstanceOfSatisfying(ChangeWatcher.Doubt.class,
                doubt -> assertThat(doubt.reason()).contains("overflow"));
    }

    @Test
    void aMountBeneathARootIsRefusedFromMountinfo() {
        List<String> info = List.of(
                "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw",
                "40 22 0:35 / /work/ws/sub\\040dir rw - tmpfs tmpfs rw");
        assertThat(FanotifyWatcher.mountedBeneath(List.of(Path.of("/work/ws")), info)).get().asString()
                .contains("/work/ws/sub dir");
        assertThat(FanotifyWatcher.mountedBeneath(List.of(Path.of("/work/other")), info)).isEmpty();
        assertThat(FanotifyWatcher.mountedBeneath(List.of(Path.of("/work/ws/sub dir")), info)).isEmpty();
    }
}
