package dev.magus.policy.path;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * A {@link Resolution} and the symbolic links it went through, from
 * {@link PathResolver#trace(java.nio.file.Path, java.nio.file.Path)}.
 *
 * <p>Where a path ends up is not all a check may need to know: a write to {@code .envrc} that
 * is a link to {@code envrc.real} lands in {@code envrc.real}, yet the next shell's direnv reads
 * it as {@code .envrc}. Each link is named by where it lives, its resolved directory and its
 * own name ({@code /ws/.envrc}), so it compares with rule and control-file paths as one string.
 *
 * @param resolution where the path leads
 * @param links      the location of each link followed, in the order met (a link met twice,
 *                   through a loop, appears twice); empty when none was
 */
public record Traced(Resolution resolution, List<Path> links) {
    public Traced {
        Objects.requireNonNull(resolution, "resolution");
        links = List.copyOf(links);
    }
}
