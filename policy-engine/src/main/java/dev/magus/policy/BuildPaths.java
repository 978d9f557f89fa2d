package dev.magus.policy;

import dev.magus.policy.path.PathResolver;
import dev.magus.policy.path.Resolution;
import dev.magus.policy.path.Traced;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One policy build's path resolutions: each distinct absolute path is resolved (or traced)
 * once per build, however many candidates, checks and bases name it (the workspace root is
 * resolved as the root and traced again as the core rule; every declared grant resolved the
 * same state and installation dirs). Not thread-safe: one build, one thread.
 *
 * <p>Safe because a build is already a snapshot taken over a few milliseconds: two lookups of
 * one path in one build could only differ if the path changed during the build, and then
 * either answer is one the build could have seen had it run a moment earlier or later. Nothing
 * is kept across builds (the next run's policy asks the filesystem afresh), and every rule's
 * path is opened again when the ruleset is compiled, with no link followed, so a path swapped
 * for a link since is granted nothing.
 */
final class BuildPaths {
    private final PathResolver resolver;
    private final Map<Path, Traced> traced = new HashMap<>();
    private final Map<Path, Resolution> resolved = new HashMap<>();

    BuildPaths(PathResolver resolver) {
        this.resolver = resolver;
    }

    /** {@link PathResolver#resolve(Path)}, once per path per build; a trace of it already taken answers too. */
    Resolution resolve(Path absolute) {
        Traced t = traced.get(absolute);
        if (t != null) {
            return t.resolution();
        }
        Resolution r = resolved.get(absolute);
        if (r == null) {
            r = resolver.resolve(absolute);
            resolved.put(absolute, r);
        }
        return r;
    }

    /**
     * {@link PathResolver#trace(Path)}, once per path per build. A resolution already taken that
     * exists and is its own spelling answers too, with no link: the real path has no link among
     * its components, so a spelling equal to it followed none ({@link PathResolver#trace} takes
     * the kernel's answer on the same ground).
     */
    Traced trace(Path absolute) {
        Traced t = traced.get(absolute);
        if (t != null) {
            return t;
        }
        Resolution r = resolved.get(absolute);
        if (r instanceof Resolution.Resolved known && known.existing() && known.path().equals(absolute)) {
            t = new Traced(r, List.of());
        } else {
            t = resolver.trace(absolute);
        }
        traced.put(absolute, t);
        return t;
    }
}
