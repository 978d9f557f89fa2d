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

    /** One entry: what it was, and the control-file entry it falls under. */
    public record Recorded(Node node, String entry) {
        public Recorded {
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(entry, "entry");
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
