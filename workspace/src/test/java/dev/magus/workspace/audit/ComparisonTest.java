package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The pure half: changes between two snapshots, no filesystem. */
class ComparisonTest {
    static final Path WS = Path.of("/ws");

    static Node file(String text, int permissions) {
        return new Node.File(permissions, Node.Content.of(text.getBytes(StandardCharsets.UTF_8)));
    }

    static Snapshot snap(Object... pathsAndNodes) {
        Map<Path, Snapshot.Recorded> m = new LinkedHashMap<>();
        for (int i = 0; i < pathsAndNodes.length; i += 2) {
            String p = (String) pathsAndNodes[i];
            m.put(WS.resolve(p), new Snapshot.Recorded((Node) pathsAndNodes[i + 1], p.split("/")[0]));
        }
        return Snapshot.of(m);
    }

    @Test
    void theSameSnapshotHasNoChanges() {
        Snapshot s = snap("magus.yaml", file("a", 0644), ".git", new Node.Directory(0755), ".envrc", new Node.Link("real"));
        assertThat(Comparison.between(s, snap("magus.yaml", file("a", 0644), ".git", new Node.Directory(0755),
                ".envrc", new Node.Link("real")))).isEmpty();
    }

    @Test
    void createdRemovedAndChangedAreToldApart() {
        Snapshot before = snap("magus.yaml", file("mode: required", 0644), ".tool-versions", file("x", 0644));
        Snapshot after = snap("magus.yaml", file("mode: off", 0644), ".envrc", file("evil", 0644));
        List<Change> changes = Comparison.between(before, after);
        assertThat(changes).hasSize(3);
        assertThat(changes).filteredOn(c -> c instanceof Change.Created).singleElement()
                .satisfies(c -> assertThat(c.path()).isEqualTo(WS.resolve(".envrc")));
        assertThat(changes).filteredOn(c -> c instanceof Change.Removed).singleElement()
                .satisfies(c -> assertThat(c.path()).isEqualTo(WS.resolve(".tool-versions")));
        assertThat(changes).filteredOn(c -> c instanceof Change.Changed).singleElement()
                .satisfies(c -> assertThat(((Change.Changed) c).aspects()).containsExactly(Change.Aspect.CONTENT));
        assertThat(changes).extracting(Change::verb).containsExactlyInAnyOrder("created", "removed", "changed");
    }

    @Test
    void modeLinkAndTypeAreAspectsOfTheirOwn() {
        assertThat(Comparison.aspects(file("a", 0644), file("a", 0755))).containsExactly(Change.Aspect.MODE);
        assertThat(Comparison.aspects(file("a", 0644), file("b", 0600)))
                .containsExactlyInAnyOrder(Change.Aspect.CONTENT, Change.Aspect.MODE);
        assertThat(Comparison.aspects(new Node.Link("a"), new Node.Link("/etc"))).containsExactly(Change.Aspect.LINK);
        assertThat(Comparison.aspects(file("gitdir: /", 0644), new Node.Directory(0755))).containsExactly(Change.Aspect.TYPE);
        assertThat(Comparison.aspects(new Node.Directory(0755), new Node.Directory(0700))).containsExactly(Change.Aspect.MODE);
        assertThat(Comparison.aspects(new Node.Directory(0755), new Node.Directory(0755))).isEmpty();
    }

    @Test
    void whatIsBeneathACreatedOrRemovedDirectoryIsFoldedIntoIt() {
        Snapshot before = snap(".git/hooks", new Node.Directory(0755), ".git/hooks/a.sample", file("a", 0755),
                ".git/hooks/b.sample", file("b", 0755), ".git/hooks-x", file("unrelated", 0644));
        Snapshot after = snap(".claude", new Node.Directory(0755), ".claude/settings.json", file("{}", 0644),
                ".claude/commands", new Node.Directory(0755), ".claude/commands/x.md", file("x", 0644),
                ".git/hooks-x", file("unrelated", 0644));
        List<Change> changes = Comparison.between(before, after);
        assertThat(changes).hasSize(2);
        assertThat(changes).filteredOn(c -> c instanceof Change.Created).singleElement()
                .satisfies(c -> {
                    assertThat(c.path()).isEqualTo(WS.resolve(".claude"));
                    assertThat(((Change.Created) c).beneath()).isEqualTo(3);
                });
        assertThat(changes).filteredOn(c -> c instanceof Change.Removed).singleElement()
                .satisfies(c -> {
                    assertThat(c.path()).isEqualTo(WS.resolve(".git/hooks"));
                    assertThat(((Change.Removed) c).beneath()).isEqualTo(2);
                });
    }

    @Test
    void aDirectoryReplacedByALinkCarriesWhatWasBeneathIt() {
        Snapshot before = snap(".git/hooks", new Node.Directory(0755), ".git/hooks/a.sample", file("a", 0755),
                ".git/hooks/b.sample", file("b", 0755));
        Snapshot after = snap(".git/hooks", new Node.Link("/home/u/elsewhere"));
        assertThat(Comparison.between(before, after)).singleElement().isInstanceOfSatisfying(Change.Changed.class, c -> {
            assertThat(c.aspects()).containsExactly(Change.Aspect.TYPE);
            assertThat(c.beneath()).isEqualTo(2);
        });
        // And the other way round: a file replaced by a directory with contents.
        List<Change> back = Comparison.between(snap("magus.yaml", file("x", 0644)),
                snap("magus.yaml", new Node.Directory(0755), "magus.yaml/a", file("a", 0644)));
        assertThat(back).singleElement().satisfies(c -> assertThat(c.beneath()).isEqualTo(1));
    }

    @Test
    void pathOrderPutsADirectoryRightBeforeItsContents() {
        List<Path> sorted = new java.util.ArrayList<>(List.of(WS.resolve("a/x"), WS.resolve("a-b"), WS.resolve("a")));
        sorted.sort(PathOrder.INSTANCE);
        assertThat(sorted).containsExactly(WS.resolve("a"), WS.resolve("a/x"), WS.resolve("a-b"));
    }

    @Test
    void contentIsComparedByBytesNotByTheArrayItCameIn() {
        Node.Content a = Node.Content.of("same".getBytes(StandardCharsets.UTF_8));
        Node.Content b = Node.Content.of("same".getBytes(StandardCharsets.UTF_8));
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a.bytes()).hasValueSatisfying(x -> assertThat(x).isEqualTo("same".getBytes(StandardCharsets.UTF_8)));
        assertThat(Node.Content.of(new byte[Node.Content.KEEP_LIMIT + 1]).bytes()).isEmpty();
    }

    @Test
    void aChangeMustChangeSomething() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Change.Changed(WS, "x", file("a", 0644), file("a", 0644), Set.of(), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
