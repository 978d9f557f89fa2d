package dev.magus.workspace.audit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Where a walk or a rescan records control entries, the directories it listed, and what it could not list. */
final class WalkSink {
    final Map<Path, Snapshot.Recorded> controls = new HashMap<>();
    final Set<Path> wholeDirs = new HashSet<>();
    final List<Scan.Dir> dirs = new ArrayList<>();
    final Map<Path, Unlisted> unlisted = new java.util.LinkedHashMap<>();
    /**
     * Set on the after-run rescan only: the regular files with a set-user-ID or set-group-ID
     * bit whose ctime is not older than {@link #setidSince}, met in the directories listed.
     */
    List<Path> setid;
    long setidSince;
    /** How many directories were listed (not only stamped): none means the walk it rescanned still holds. */
    int listed;
    /** Taken before the walk's first system call (or given: see {@link Scan#rescan(Scan.Previous, java.util.List, java.util.Optional, long)}). */
    final long since;

    WalkSink() {
        this(Scan.nowNanos());
    }

    WalkSink(long since) {
        this.since = since;
    }

    Scan.Walk walk() {
        return new Scan.Walk(Map.copyOf(controls), List.copyOf(dirs), Set.copyOf(wholeDirs), List.copyOf(unlisted.values()),
                since, listed);
    }
}
