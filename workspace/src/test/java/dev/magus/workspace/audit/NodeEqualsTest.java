package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Node's records and Snapshot.Recorded write out equals and hashCode (no ObjectMethods bootstrap
 * in a one-shot run): equal exactly when every component is, as a record's own.
 */
class NodeEqualsTest {
    private static Node.Content content(String text) {
        return Node.Content.of(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Each row: a value, one equal to it made apart, then values that differ in one component each. */
    private static List<List<Object>> rows() {
        Node.Resolved resolved = new Node.Resolved(Path.of("/w/a"), 0644, content("x"));
        return List.of(
                List.of(new Node.File(0644, content("a")), new Node.File(0644, content("a")),
                        new Node.File(0600, content("a")), new Node.File(0644, content("b")), new Node.Directory(0644)),
                List.of(new Node.Directory(0755), new Node.Directory(0755), new Node.Directory(0700), new Node.Other(0755)),
                List.of(new Node.Link("t", Optional.of(resolved)),
                        new Node.Link("t", Optional.of(new Node.Resolved(Path.of("/w/a"), 0644, content("x")))),
                        new Node.Link("u", Optional.of(resolved)), new Node.Link("t")),
                List.of(resolved, new Node.Resolved(Path.of("/w/a"), 0644, content("x")),
                        new Node.Resolved(Path.of("/w/b"), 0644, content("x")), new Node.Resolved(Path.of("/w/a"), 0600, content("x")),
                        new Node.Resolved(Path.of("/w/a"), 0644, content("y"))),
                List.of(new Node.Other(010644), new Node.Other(010644), new Node.Other(020644)),
                List.of(new Snapshot.Recorded(new Node.Directory(0755), ".git"),
                        new Snapshot.Recorded(new Node.Directory(0755), ".git"),
                        new Snapshot.Recorded(new Node.Directory(0700), ".git"),
                        new Snapshot.Recorded(new Node.Directory(0755), ".envrc")));
    }

    @Test
    void equal_exactly_when_every_component_is() {
        for (List<Object> row : rows()) {
            Object a = row.get(0);
            Object same = row.get(1);
            assertThat(a).isEqualTo(same).hasSameHashCodeAs(same);
            assertThat(a).isNotEqualTo(null).isNotEqualTo("text");
            for (Object other : row.subList(2, row.size())) {
                assertThat(a).as("%s vs %s", a, other).isNotEqualTo(other);
                assertThat(other).as("%s vs %s", other, a).isNotEqualTo(a);
            }
        }
    }
}
