package dev.magus.workspace.audit;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the after-run audits keep from one run of a workspace to the next, for as long as their
 * owner lives (a command-line run, a server, a test): the last walk of each workspace, so the
 * next run's walk lists only the directories whose times moved since ({@link Scan#rescan});
 * a server or a program that runs many commands pays the full walk once. A fresh one walks
 * everything again, or starts from the state dir's walk when the audit keeps one there: as a
 * new process would. Bounded; the walks kept are immutable.
 */
public final class AuditCaches {
    private static final int WORKSPACES = 16;

    /** The control-file audit's last walk of each workspace. */
    final Map<String, Scan.Previous> walks = bounded();
    /**
     * For each workspace and state dir, the walk in {@link #walks} that the state dir's file is
     * known to hold the equal of (loaded, written, or found still holding), by identity: a run
     * that starts from it and changes nothing need not rewrite the file. Another process
     * replacing the file meanwhile leaves a walk of the same workspace there, as good to rescan
     * from; one removing it costs the next owner a full walk.
     */
    final Map<String, Scan.Previous> filed = bounded();
    /**
     * The directories an earlier run of each workspace left unaudited (cannot be listed after
     * it), by workspace: here, and in the state dir when the audit keeps walks there
     * ({@link WalkCache#saveUnaudited}), which no run can write. Until such a directory is seen
     * through again, every run fails naming it; the run in which it can be listed again treats
     * it as one it reopened: every control entry beneath it is the earlier run's, reported and
     * removed (under restore), never taken as the baseline.
     */
    final Map<String, Set<Path>> unaudited = new ConcurrentHashMap<>();
    /** The descendant audit's last walk of each set of trees. */
    final Map<String, TreeScan.Tree> trees = bounded();
    private volatile AfterPass lastPass;

    /** How the last after pass of a control-file audit kept here went; for tests and benchmarks. */
    public Optional<AfterPass> lastAfterPass() {
        return Optional.ofNullable(lastPass);
    }

    void lastPass(AfterPass pass) {
        lastPass = pass;
    }

    private static <V> Map<String, V> bounded() {
        return Collections.synchronizedMap(new LinkedHashMap<>(WORKSPACES, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > WORKSPACES;
            }
        });
    }
}
