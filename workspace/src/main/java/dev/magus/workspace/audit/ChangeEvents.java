package dev.magus.workspace.audit;

import dev.magus.policy.watch.ChangeWatcher;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which directories of the audited roots the kernel's events name (pure: no I/O). Each event
 * names a directory by its real path now; the roots are audited by the paths they are given
 * as, so each root's real path is mapped back to it. An event outside every root (another
 * process's, elsewhere on the same filesystem) costs only this filtering.
 *
 * <p>Touched are: the event's directory; for a name in it, that entry too (when it is a
 * directory the walk knew, its own stamp is what changed: a chmod, a directory renamed over
 * it); for the directory's own event ({@code "."}), its parent as well. Too many rather than
 * too few: a touched directory is only listed again.
 */
final class ChangeEvents {
    private ChangeEvents() {
    }

    /**
     * The directories {@code events} touch, as paths beneath the roots of {@code realRoots}
     * (each root's real path, to the root as the audit names it).
     */
    static Set<Path> touched(List<ChangeWatcher.Event> events, Map<Path, Path> realRoots) {
        Set<Path> out = new HashSet<>();
        for (ChangeWatcher.Event e : events) {
            Optional<Path> dir = inRoots(e.directory(), realRoots);
            if (dir.isEmpty()) {
                continue;
            }
            out.add(dir.get());
            if (e.self()) {
                inRoots(e.directory().getParent(), realRoots).ifPresent(out::add);
            } else if (!e.name().isEmpty() && !e.name().contains("/")) {
                out.add(dir.get().resolve(e.name()));
            }
        }
        return out;
    }

    /** {@code real} as a path beneath the root whose real path holds it; the deepest such root. */
    static Optional<Path> inRoots(Path real, Map<Path, Path> realRoots) {
        if (real == null) {
            return Optional.empty();
        }
        Path best = null;
        for (Path r : realRoots.keySet()) {
            if (real.startsWith(r) && (best == null || r.getNameCount() > best.getNameCount())) {
                best = r;
            }
        }
        if (best == null) {
            return Optional.empty();
        }
        return Optional.of(realRoots.get(best).resolve(best.relativize(real)));
    }
}
