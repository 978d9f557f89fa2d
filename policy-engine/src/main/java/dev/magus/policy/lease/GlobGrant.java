package dev.magus.policy.lease;

import dev.magus.policy.fs.Rule;
import java.util.List;
import java.util.Objects;

/**
 * What the kernel is given for one write glob, and how that compares with the glob.
 *
 * @param glob        the job's glob
 * @param enforcement exact, wider (binding refines) or narrower (existing matches only)
 * @param rules       the rw rules for the kernel (directories as subtrees, files as files)
 * @param why         one line for {@code magus policy}
 */
public record GlobGrant(WriteGlob glob, Enforcement enforcement, List<Rule> rules, String why) {
    public GlobGrant {
        Objects.requireNonNull(glob, "glob");
        Objects.requireNonNull(enforcement, "enforcement");
        rules = List.copyOf(rules);
        Objects.requireNonNull(why, "why");
    }
}
