package dev.magus.workspace.spell;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a spell's grants are derived from: the variables the tool itself reads, with the tool's
 * own defaults under home. A value, never {@code System.getenv()}, so a test derives the spells
 * of a fake host.
 *
 * @param env   the host environment as magus sees it (not the child's scrubbed one)
 * @param home  the user's home directory, absolute
 * @param macos whether the tools' macOS defaults apply
 */
public record SpellHost(Map<String, String> env, Path home, boolean macos) {
    public SpellHost {
        env = Map.copyOf(env);
        Objects.requireNonNull(home, "home");
        if (!home.isAbsolute()) {
            throw new IllegalArgumentException("home must be absolute: " + home);
        }
    }

    /** A variable's value; empty when unset or empty (tools treat both as unset). */
    public Optional<String> variable(String name) {
        return Optional.ofNullable(env.get(name)).filter(v -> !v.isEmpty());
    }
}
