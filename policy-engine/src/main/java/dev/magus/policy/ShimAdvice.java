package dev.magus.policy;

import dev.magus.env.shim.ShimManager;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What a denial of a version manager's shim ({@code ~/.pyenv/shims/python3}) adds to its line:
 * the shim is a script that runs the manager and then one of its installs, so allowing the shim
 * directory alone only moves the denial one step on. The spell that knows the manager grants
 * all of it and passes its variables; the line names that spell.
 */
final class ShimAdvice {
    private ShimAdvice() {
    }

    /** {@code "; it is pyenv's, …: bind the spell python …"}, when {@code resolved} is a manager's shim or install. */
    static Optional<String> of(Path resolved) {
        Path dir = resolved.getParent();
        if (dir == null) {
            return Optional.empty();
        }
        String parent = dir.toString();
        for (ShimManager m : ShimManager.KNOWN) {
            if (m.spell().isPresent() && m.marks(parent)) {
                return Optional.of("; it is " + m.name() + "'s, which runs more of " + m.name() + "'s installs:"
                        + " bind the spell " + m.spell().get() + " in magus.yaml's projects rather than allow this"
                        + " directory alone");
            }
        }
        return Optional.empty();
    }
}
