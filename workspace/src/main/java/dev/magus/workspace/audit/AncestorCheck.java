package dev.magus.workspace.audit;

import dev.magus.policy.path.DirectoryReader;
import dev.magus.policy.path.DirectoryReader.Kind;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether every directory from a root down to (not including) a path is a real directory,
 * never a link: what the child left must not lead a read, or a restore, elsewhere.
 */
final class AncestorCheck {
    private final DirectoryReader reader;
    private final List<Path> roots;
    private final Map<Path, Boolean> known = new HashMap<>();

    AncestorCheck(DirectoryReader reader, List<Path> roots) {
        this.reader = reader;
        this.roots = roots;
    }

    Optional<Path> rootOf(Path p) {
        Path best = null;
        for (Path r : roots) {
            if (p.startsWith(r) && (best == null || r.getNameCount() > best.getNameCount())) {
                best = r;
            }
        }
        return Optional.ofNullable(best);
    }

    boolean realDirectoriesUpTo(Path p) {
        Optional<Path> root = rootOf(p);
        if (root.isEmpty()) {
            return false;
        }
        for (Path a = p.getParent(); a != null && a.startsWith(root.get()); a = a.getParent()) {
            Boolean ok = known.get(a);
            if (ok == null) {
                ok = reader.stat(a.toString()).map(s -> s.kind() == Kind.DIRECTORY).orElse(false);
                known.put(a, ok);
            }
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
