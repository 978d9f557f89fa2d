package dev.magus.policy.path;

import java.util.Optional;

/**
 * A way to let the operating system itself resolve a path that exists, found by
 * {@link PathResolver} with {@link java.util.ServiceLoader} (this module stays pure Java; an
 * implementation with native calls lives in a module that may make them).
 *
 * <p>Asking the kernel costs a few system calls whatever the path's length, where walking it
 * costs one or two per component, so an uncached {@link PathResolver} asks this first and
 * walks only when it gets no answer. The walk stays the single source of the semantics for
 * everything but the plain case: missing tails, a non-directory in the middle, loops,
 * unreadable directories. An implementation therefore answers only when it is sure and says
 * nothing otherwise; saying nothing is always correct, answering wrongly never is.
 *
 * <p>Implementations are thread-safe and have a public no-argument constructor.
 */
public interface KernelLookup {

    /**
     * The real path of {@code absolutePath} as the kernel resolves it: every symbolic link
     * followed wherever it appears (the last component included), {@code ..} taken from the
     * resolved directory, {@code .} and repeated slashes ignored.
     *
     * @param absolutePath an absolute path as text, as {@link java.nio.file.Path#toString()}
     *                     gives it
     * @return present only when the whole path exists now, the kernel followed every link in it,
     *         and the answer is an absolute, normalized path naming that very file (no
     *         component a link, no {@code .} or {@code ..}); empty whenever the kernel failed
     *         or could not say exactly (missing component, not a directory, too many links, no
     *         permission, a name this lookup cannot encode or decode, a file that was removed,
     *         no way to ask). Never throws for a failed lookup.
     */
    Optional<String> realPath(String absolutePath);

    /**
     * Whether {@code plainPath} exists now with no symbolic link anywhere in it, asked of the
     * kernel with no link followed at all ({@code openat2(RESOLVE_NO_SYMLINKS)}): one or two
     * system calls where {@link #realPath} needs four, and no answer to read back, since such a
     * path is its own real path. {@link PathResolver} asks it only for a plain
     * spelling: absolute, no empty, {@code .} or {@code ..} component, no trailing slash.
     *
     * <p>The default says {@link Unlinked#UNKNOWN}: the resolver then asks {@link #realPath}.
     *
     * @param plainPath an absolute, plain path as text, as {@link java.nio.file.Path#toString()}
     *                  gives it
     * @return what the kernel said; never null, never throws for a failed lookup
     */
    default Unlinked unlinked(String plainPath) {
        return Unlinked.UNKNOWN;
    }

    /** What {@link #unlinked} found; each answer is one the walk would agree with at that moment. */
    enum Unlinked {
        /**
         * Every component exists and none is a symbolic link (of any kind, magic ones
         * included): the walk would follow no link and end at the path as spelled, existing.
         */
        YES,
        /**
         * The kernel met a symbolic link (ELOOP): the path's real path is another spelling, so
         * the resolver asks {@link #realPath} (for where it leads) or walks (for the links).
         */
        LINKED,
        /**
         * A component before any link is missing or not a directory (ENOENT, ENOTDIR): the
         * whole path does not exist, so the kernel following links would fail at that very
         * component too, and only the walk can say what it means.
         */
        ABSENT,
        /** No answer (no way to ask, a name that cannot be encoded, any other failure): ask {@link #realPath}. */
        UNKNOWN
    }
}
