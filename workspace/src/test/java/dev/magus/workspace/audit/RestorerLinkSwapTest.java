package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.workspace.safefs.Unlinker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Removing what the child created never follows a link, even one that a concurrent writer (a
 * stray that outlived the run, another run in the same workspace) swapped in for a directory
 * after the restorer looked at it: nothing outside the workspace is deleted.
 */
class RestorerLinkSwapTest {
    Path ws;
    Path outside;

    @BeforeEach
    void make() throws IOException {
        ws = Files.createTempDirectory("magus-swap-test-").toRealPath();
        outside = Files.createTempDirectory("magus-swap-outside-").toRealPath();
    }

    @AfterEach
    void remove() throws IOException {
        Restorer.removeEntry(ws);
        Restorer.removeEntry(outside);
    }

    @Test
    void aDirectoryAboveTheEntrySwappedForALinkAfterTheCheckLeadsNowhere() throws IOException {
        Path sub = Files.createDirectories(ws.resolve("sub"));
        Path created = Files.writeString(sub.resolve("keep"), "child's\n");
        AncestorCheck ancestors = new AncestorCheck(Readers.java(), List.of(ws));
        Restorer restorer = new Restorer(Readers.java(), ancestors);
        // The restorer has looked: sub is a real directory (and remembered so).
        assertThat(ancestors.realDirectoriesUpTo(created)).isTrue();
        // Then the writer swaps it for a link to a directory outside with a file of that name.
        Path precious = Files.writeString(outside.resolve("keep"), "the user's\n");
        Files.delete(created);
        Files.delete(sub);
        Files.createSymbolicLink(sub, outside);

        Optional<String> failed = restorer.undo(new Change.Created(created, "keep",
                new Node.File(0644, Node.Content.of("child's\n".getBytes())), 0), new Snapshot(new TreeMap<>()));

        assertThat(precious).as("the file outside the workspace survives").hasContent("the user's\n");
        assertThat(failed).as("and the change is reported as not restored").isPresent();
    }

    @Test
    void aDirectoryAboveARemovedFileSwappedForALinkAfterTheCheckGetsNoWriteThroughIt() throws IOException {
        Path sub = Files.createDirectories(ws.resolve("sub"));
        Path envrc = sub.resolve(".envrc");
        AncestorCheck ancestors = new AncestorCheck(Readers.java(), List.of(ws));
        Restorer restorer = new Restorer(Readers.java(), ancestors);
        assertThat(ancestors.realDirectoriesUpTo(envrc)).isTrue();
        // The run removed sub/.envrc; after the check, sub becomes a link to a directory outside.
        Files.delete(sub);
        Files.createSymbolicLink(sub, outside);

        Optional<String> failed = restorer.undo(new Change.Removed(envrc, ".envrc",
                new Node.File(0644, Node.Content.of("export A=1\n".getBytes())), 0), new Snapshot(new TreeMap<>()));

        assertThat(failed).as("reported as not restored").isPresent();
        try (var s = Files.list(outside)) {
            assertThat(s.toList()).as("nothing written through the planted link").isEmpty();
        }
    }

    @Test
    void aFileIsPutBackRelativeToItsOpenParentWithItsModeOverWhateverIsThere() throws IOException {
        Path sub = Files.createDirectories(ws.resolve("a/b"));
        Files.createSymbolicLink(sub.resolve("hook"), outside.resolve("x"));
        Restorer.putBeneath(ws, sub.resolve("hook"), new Node.File(0750, Node.Content.of("#!/bin/sh\n".getBytes())));
        assertThat(sub.resolve("hook")).isRegularFile().hasContent("#!/bin/sh");
        assertThat(Files.getAttribute(sub.resolve("hook"), "unix:mode")).isEqualTo(0100750);
        assertThat(outside.resolve("x")).doesNotExist();
        Files.createDirectories(sub.resolve("cfg/inner"));
        Restorer.putBeneath(ws, sub.resolve("cfg"), new Node.File(0600, Node.Content.of("k=v\n".getBytes())));
        assertThat(sub.resolve("cfg")).isRegularFile().hasContent("k=v");
        try (var s = Files.list(sub)) {
            assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactlyInAnyOrder("hook", "cfg");
        }
    }

    @Test
    void aTreeWithALinkToAnOutsideDirectoryIsRemovedWithoutFollowingIt() throws IOException {
        Path tree = Files.createDirectories(ws.resolve("hooks/deep"));
        Files.writeString(tree.resolve("f"), "x");
        Files.createSymbolicLink(tree.resolve("out"), outside);
        Path precious = Files.writeString(outside.resolve("keep"), "the user's\n");
        Restorer restorer = new Restorer(Readers.java(), new AncestorCheck(Readers.java(), List.of(ws)));

        Optional<String> failed = restorer.undo(new Change.Created(ws.resolve("hooks"), "hooks",
                new Node.Directory(0755), 3), new Snapshot(new TreeMap<>()));

        assertThat(failed).isEmpty();
        assertThat(ws.resolve("hooks")).doesNotExist();
        assertThat(precious).hasContent("the user's\n");
        assertThat(outside).isDirectory();
    }

    @Test
    void aLinkGivenAsTheEntryIsUnlinkedNotFollowed() throws IOException {
        Path precious = Files.writeString(outside.resolve("keep"), "the user's\n");
        Path link = Files.createSymbolicLink(ws.resolve("d"), outside);
        Unlinker.removeBeneath(ws, link);
        assertThat(link).doesNotExist();
        assertThat(precious).hasContent("the user's\n");
    }
}
