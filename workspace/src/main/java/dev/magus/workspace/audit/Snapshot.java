package dev.magus.workspace.audit;

import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Every control entry of a workspace at one moment, by absolute path (in {@link PathOrder},
 * so a directory comes right before what is beneath it), with the control-file entry each falls under.
 */
public record Snapshot(SortedMap<Path, Recorded> entries) {

    /**
     * One entry: what it was, and the control-file entry it falls under. Equals and hashCode
     * written out, as {@link Node}'s (no {@code ObjectMethods} bootstrap in a one-shot run).
     */
    public record Recorded(Node node, String entry) {
        public Recorded {
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(entry, "entry");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Recorded r && node.equals(r.node) && entry.equals(r.entry);
        }

        @Override
        public int hashCode() {
            return 31 * node.hashCode() + entry.hashCode();
        }
    }

    public Snapshot {
        TreeMap<Path, Recorded> sorted = new TreeMap<>(PathOrder.INSTANCE);
        sorted.putAll(entries);
        entries = Collections.unmodifiableSortedMap(sorted);
    }

    public static Snapshot of(Map<Path, Recorded> entries) {
        TreeMap<Path, Recorded> sorted = new TreeMap<>(PathOrder.INSTANCE);
        sorted.putAll(entries);
        return new Snapshot(sorted);
    }

    public int size() {
        return entries.size();
    }
}
