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
}
