package dev.magus.policy.path;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;

/**
 * Resolves a requested path the way the Linux kernel walks it, component by component, so
 * that a check sees the file the operation would really reach rather than the spelling it
 * was asked with.
 *
 * <ul>
 *   <li>Every symbolic link is followed where it appears, absolute and relative targets and
 *       chains alike; a dangling one too, so a write through it is checked where it lands.</li>
 *   <li>{@code ..} climbs out of the <em>resolved</em> directory ({@code link/..} is the parent
 *       of the link's target), {@code .} and repeated slashes are ignored.</li>
 *   <li>More than {@value #MAX_LINKS} links in one resolution is the kernel's ELOOP:
 *       {@link Resolution.TooManyLinks}.</li>
 *   <li>A missing component ends the real walk: it and everything after it are kept as written
 *       (lexically normalized) after the resolved prefix, with {@code exists=false}. A later
 *       {@code ..} that climbs back over the missing part resumes the real walk (the way
 *       {@code mkdir -p} would reach it), but the result still says {@code exists=false}
 *       because the kernel would have failed with ENOENT.</li>
 *   <li>A non-directory in the middle ({@code file/x}, {@code file/.}, {@code file/..}, a link
 *       target ending in {@code /} that names a file) is the kernel's ENOTDIR: nothing beneath
 *       it exists. The result is the resolved file followed by the lexical tail, with
 *       {@code exists=false}; a {@code ..} in that tail never climbs above the file, so such a
 *       request is always checked at or beneath the file it names (the real operation fails
 *       anyway).</li>
 *   <li>A component that cannot be examined (for example a directory without search
 *       permission) is treated like a missing one.</li>
 * </ul>
 *
 * <p>Only {@code lstat}-level calls are made; nothing is cached, so the answer always reflects
 * the filesystem at the time of the call. Instances are stateless and thread-safe.
 */
public final class PathResolver {

    /** The kernel's {@code MAXSYMLINKS}: the 41st link in one resolution fails with ELOOP. */
    public static final int MAX_LINKS = 40;

    public PathResolver() {
    }

    /**
     * Resolves {@code request}; a relative one is taken against {@code cwd}, which is resolved
     * first (a relative {@code cwd} against the JVM's working directory). Links met while
     * resolving {@code cwd} do not count towards the limit of the request, as the kernel's
     * {@code chdir} had already resolved them.
     */
    public Resolution resolve(Path request, Path cwd) {
        if (request.isAbsolute()) {
            return resolve(request);
        }
        Path base = cwd.toAbsolutePath();
        Walk walk = new Walk(base.getRoot());
        if (walk.run(base.toString())) {
            return new Resolution.TooManyLinks(base.resolve(request), walk.reached);
        }
        walk.links = 0;
        if (walk.run(request.toString())) {
            return new Resolution.TooManyLinks(base.resolve(request), walk.reached);
        }
        return walk.result();
    }

    /** Resolves an absolute request. */
    public Resolution resolve(Path absoluteRequest) {
        if (!absoluteRequest.isAbsolute()) {
            throw new IllegalArgumentException("request must be absolute (or give a working directory): " + absoluteRequest);
        }
        Walk walk = new Walk(absoluteRequest.getRoot());
        if (walk.run(absoluteRequest.toString())) {
            return new Resolution.TooManyLinks(absoluteRequest, walk.reached);
        }
        return walk.result();
    }

    /** One resolution in progress. The pending text is a stack of frames, like the kernel's link stack. */
    private static final class Walk {
        private final Path root;
        /** The resolved prefix: real, existing, absolute. */
        private Path dir;
        private boolean dirIsDirectory = true;
        /** Lexical components after {@link #dir} that do not exist (missing, or beneath a non-directory). */
        private String[] tail = new String[0];
        private int tailSize;
        /** {@link #dir} is not a directory and something was asked beneath it (ENOTDIR). */
        private boolean underFile;
        /** Something along the way did not exist; sticky, as the kernel would have stopped there. */
        private boolean broken;
        private int links;
        private Path reached;

        private String[] texts = new String[4];
        private int[] positions = new int[4];
        private int top = -1;

        Walk(Path root) {
            this.root = root;
            this.dir = root;
        }

        /** Consumes {@code text} from the current state; returns true on too many links. */
        boolean run(String text) {
            push(text);
            while (top >= 0) {
                String s = texts[top];
                int n = s.length();
                int p = positions[top];
                while (p < n && s.charAt(p) == '/') {
                    p++;
                }
                if (p >= n) {
                    top--;
                    // A trailing slash demands a directory (a link target written "file/").
                    if (n > 0 && s.charAt(n - 1) == '/' && inRealWalk() && !dirIsDirectory) {
                        enterUnderFile();
                    }
                    continue;
                }
                int e = s.indexOf('/', p);
                if (e < 0) {
                    e = n;
                }
                positions[top] = e;
                if (step(s, p, e)) {
                    return true;
                }
            }
            return false;
        }

        private boolean inRealWalk() {
            return tailSize == 0 && !underFile;
        }

        private void enterUnderFile() {
            underFile = true;
            broken = true;
        }

        /** One component {@code s[p, e)}; returns true on too many links. */
        private boolean step(String s, int p, int e) {
            int len = e - p;
            boolean dot = len == 1 && s.charAt(p) == '.';
            boolean dotdot = len == 2 && s.charAt(p) == '.' && s.charAt(p + 1) == '.';
            if (inRealWalk() && !dirIsDirectory) {
                enterUnderFile();
            }
            if (!inRealWalk()) {
                if (dotdot) {
                    if (tailSize > 0) {
                        tail[--tailSize] = null;
                    }
                    // Over the missing part, back where the real walk left off; beneath a file, clamp.
                } else if (!dot) {
                    addTail(s.substring(p, e));
                }
                return false;
            }
            if (dot) {
                return false;
            }
            if (dotdot) {
                Path parent = dir.getParent();
                if (parent != null) {
                    dir = parent;
                }
                dirIsDirectory = true;
                return false;
            }
            String name = s.substring(p, e);
            Path next = dir.resolve(name);
            BasicFileAttributes attrs;
            try {
                attrs = Files.readAttributes(next, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException missing) {
                broken = true;
                addTail(name);
                return false;
            } catch (IOException unreadable) {
                broken = true;
                addTail(name);
                return false;
            }
            if (attrs.isSymbolicLink()) {
                if (++links > MAX_LINKS) {
                    reached = next;
                    return true;
                }
                String target;
                try {
                    target = Files.readSymbolicLink(next).toString();
                } catch (IOException vanished) {
                    // Replaced between lstat and readlink: treat like a missing component.
                    broken = true;
                    addTail(name);
                    return false;
                }
                if (!target.isEmpty() && target.charAt(0) == '/') {
                    dir = root;
                    dirIsDirectory = true;
                }
                push(target);
                return false;
            }
            dir = next;
            dirIsDirectory = attrs.isDirectory();
            return false;
        }

        private void addTail(String name) {
            if (tailSize == tail.length) {
                tail = Arrays.copyOf(tail, Math.max(4, tailSize * 2));
            }
            tail[tailSize++] = name;
        }

        private void push(String text) {
            if (++top == texts.length) {
                texts = Arrays.copyOf(texts, top * 2);
                positions = Arrays.copyOf(positions, top * 2);
            }
            texts[top] = text;
            positions[top] = 0;
        }

        Resolution result() {
            Path path = dir;
            for (int i = 0; i < tailSize; i++) {
                path = path.resolve(tail[i]);
            }
            return new Resolution.Resolved(path, !broken);
        }
    }
}
