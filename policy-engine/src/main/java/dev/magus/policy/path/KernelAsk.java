package dev.magus.policy.path;

import java.nio.file.FileSystems;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What {@link PathResolver} asks its {@link KernelLookup} before it walks, and how it takes the
 * answers: {@link KernelLookup#unlinked} first for a plain spelling, {@link KernelLookup#realPath}
 * when that gives no answer. Null always means "walk": the walk is the reference, so saying
 * nothing is always correct.
 */
final class KernelAsk {
    private KernelAsk() {
    }

    /**
     * The kernel's answer for {@code absolute}, when this resolver asks one and it has one:
     * {@code Resolved(real, true)}; null to walk.
     *
     * @param spelled {@code absolute} as a path, reused as the answer when it is its own real
     *                path; null when there is none
     */
    static Resolution resolve(KernelLookup lookup, String absolute, Path spelled) {
        switch (unlinked(lookup, absolute)) {
            case YES:
                // No link in it: the walk would end at this very spelling, existing.
                return new Resolution.Resolved(asPath(absolute, spelled), true);
            case ABSENT:
                // Missing before any link: following links fails there too; the walk says what it means.
                return null;
            default:
                return realPath(lookup, absolute);
        }
    }

    /** {@code Path.of(absolute)}: {@code spelled} itself when it is that path already. */
    private static Path asPath(String absolute, Path spelled) {
        return spelled != null && spelled.getFileSystem() == FileSystems.getDefault() ? spelled : Path.of(absolute);
    }

    /** {@link KernelLookup#realPath} of {@code absolute} as a resolution; null to walk. */
    private static Resolution realPath(KernelLookup lookup, String absolute) {
        Optional<String> real;
        try {
            real = lookup.realPath(absolute);
        } catch (RuntimeException | LinkageError broken) {
            // A lookup that breaks its contract (or whose natives are missing) costs the walk, never an answer.
            return null;
        }
        if (real == null || real.isEmpty()) {
            return null;
        }
        try {
            Path p = Path.of(real.get());
            return p.isAbsolute() ? new Resolution.Resolved(p, true) : null;
        } catch (InvalidPathException brokenContract) {
            return null;
        }
    }

    /**
     * What {@link KernelLookup#unlinked} says of {@code absolute}: {@code UNKNOWN} unless it is
     * plain ({@link #isPlain}) and the lookup answers.
     */
    private static KernelLookup.Unlinked unlinked(KernelLookup lookup, String absolute) {
        if (!isPlain(absolute)) {
            return KernelLookup.Unlinked.UNKNOWN;
        }
        try {
            KernelLookup.Unlinked u = lookup.unlinked(absolute);
            return u != null ? u : KernelLookup.Unlinked.UNKNOWN;
        } catch (RuntimeException | LinkageError broken) {
            return KernelLookup.Unlinked.UNKNOWN;
        }
    }

    /**
     * Absolute, and no component empty, {@code .} or {@code ..}, no trailing slash: a spelling
     * that, with no link in it, names exactly the file the walk would reach (the walk takes
     * {@code ..} from the resolved directory, which is then the lexical one too, but such
     * spellings are left to the answers that need no argument).
     */
    static boolean isPlain(String absolute) {
        int n = absolute.length();
        if (n == 0 || absolute.charAt(0) != '/') {
            return false;
        }
        if (n == 1) {
            return true;
        }
        int start = 1;
        for (int i = 1; i <= n; i++) {
            if (i == n || absolute.charAt(i) == '/') {
                int len = i - start;
                if (len == 0 || len == 1 && absolute.charAt(start) == '.'
                        || len == 2 && absolute.charAt(start) == '.' && absolute.charAt(start + 1) == '.') {
                    return false;
                }
                start = i + 1;
            }
        }
        return true;
    }

    /**
     * The kernel's answer for {@code absolute} when it is {@code absolute} itself (so no link was
     * followed); null otherwise. A path the kernel found a link in ({@code LINKED}) is walked at
     * once: its real path is never its own spelling (the real path has no link among its
     * components, the spelling has one), so asking {@link KernelLookup#realPath} could only lead
     * to the walk. {@code spelled} as in {@link #resolve}.
     */
    static Traced traceUnlinked(KernelLookup lookup, String absolute, Path spelled) {
        switch (unlinked(lookup, absolute)) {
            case YES:
                return new Traced(new Resolution.Resolved(asPath(absolute, spelled), true), List.of());
            case LINKED:
            case ABSENT:
                return null;
            default:
                break;
        }
        Resolution known = realPath(lookup, absolute);
        if (known != null && known.resolvedPath().orElseThrow().toString().equals(absolute)) {
            return new Traced(known, List.of());
        }
        return null;
    }

}
