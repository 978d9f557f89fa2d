package dev.magus.policy.path;

import dev.magus.policy.path.Filesystem.Entry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

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
 * <p>The walk asks its {@link Filesystem} only what one {@code lstat} (and {@code readlink})
 * says, one component at a time: {@link Filesystem#real()} unless another is given, such as a
 * tree in memory for an exact test of a policy. A resolver made with {@code new PathResolver()}
 * caches nothing, so every answer reflects the filesystem at the time of the call; it first
 * asks the filesystem's {@link KernelLookup}, if any (for the real one, the installed provider,
 * found once with {@link java.util.ServiceLoader}), to let the kernel
 * resolve the whole path in a few calls (a plain spelling first with no link followed at all,
 * {@link KernelLookup#unlinked}: such a path is its own real path), and walks only when that gives no answer (the path
 * does not wholly exist, or the kernel could not say). The lookup answers only where the walk
 * would say {@code Resolved(realPath, exists=true)}, so both give the same answers; the
 * walk stays the one definition of everything else. {@link #walking()} never asks the kernel.
 *
 * <p>One made with {@link #caching(int)} walks and remembers what it learned about existing
 * components (directory, other file, or link and its target) and answers from memory until
 * {@link #invalidate()}: use it only where the tree is known not to change under it, and
 * invalidate when it may have (missing components are never remembered, so creating files
 * needs no invalidation; replacing, removing or re-pointing one does). Instances are
 * thread-safe.
 */
public final class PathResolver {

    /** The kernel's {@code MAXSYMLINKS}: the 41st link in one resolution fails with ELOOP. */
    public static final int MAX_LINKS = 40;

    /**
     * Without a cache (null): every lookup asks the filesystem. Invalidation replaces the map
     * rather than clearing it: a walk keeps the map it started with, so an answer it learned
     * before an invalidation can only land in a map nobody reads any more, never in the new one.
     */
    private volatile Map<Path, Entry> cache;
    private final int maxEntries;
    /** Whether the filesystem's {@link KernelLookup}, if any, is asked before walking. */
    private final boolean kernelFirst;
    /** What the walk examines; one implementation per process outside tests, so the call inlines. */
    private final Filesystem fs;

    /**
     * A resolver over the real filesystem that asks it every time: the installed
     * {@link KernelLookup} first when there is one, the walk otherwise.
     */
    public PathResolver() {
        this(Filesystem.real());
    }

    /**
     * A resolver over {@code fs} that asks it every time: its {@link Filesystem#kernelLookup()}
     * first when it has one, the walk otherwise.
     */
    public PathResolver(Filesystem fs) {
        this(fs, true, 0);
    }

    private PathResolver(Filesystem fs, boolean kernelFirst, int maxEntries) {
        this.fs = Objects.requireNonNull(fs, "fs");
        this.kernelFirst = kernelFirst;
        this.maxEntries = maxEntries;
        this.cache = maxEntries > 0 ? new ConcurrentHashMap<>() : null;
    }

    /**
     * A resolver over the real filesystem that asks it every time and only ever walks, never
     * the kernel: the reference the kernel's answers are compared with, and what benchmarks of
     * the walk measure.
     */
    public static PathResolver walking() {
        return walking(Filesystem.real());
    }

    /** {@link #walking()} over {@code fs}. */
    public static PathResolver walking(Filesystem fs) {
        return new PathResolver(fs, false, 0);
    }

    /**
     * A resolver over the real filesystem that remembers up to {@code maxEntries} examined
     * components (then forgets them all and starts over) until {@link #invalidate()}. It always
     * walks, never asking the kernel: its memory is what the walk learned. See the class comment
     * for when this is safe.
     */
    public static PathResolver caching(int maxEntries) {
        return caching(Filesystem.real(), maxEntries);
    }

    /** {@link #caching(int)} over {@code fs}. */
    public static PathResolver caching(Filesystem fs, int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("a cache needs room for at least one entry: " + maxEntries);
        }
        return new PathResolver(fs, false, maxEntries);
    }

    /** The filesystem this resolver examines. */
    public Filesystem filesystem() {
        return fs;
    }

    /**
     * Two resolvers that remember nothing give the same answers when they ask the same
     * filesystem the same way, so a {@code Policy} holding one stays a value; a caching one is
     * equal only to itself.
     */
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof PathResolver r && cache == null && r.cache == null && r.kernelFirst == kernelFirst
                && r.fs.equals(fs);
    }

    @Override
    public int hashCode() {
        return cache != null ? System.identityHashCode(this) : fs.hashCode() * 2 + (kernelFirst ? 1 : 0);
    }

    @Override
    public String toString() {
        return "PathResolver[" + fs + (cache != null ? ", caching" : kernelFirst ? "" : ", walking") + "]";
    }

    /** Whether this resolver remembers what it examined. */
    public boolean isCaching() {
        return cache != null;
    }

    /** Whether this resolver asks a {@link KernelLookup} before it walks. */
    public boolean asksKernel() {
        return kernelLookup() != null;
    }

    /** The lookup to ask first, or null to walk only. */
    private KernelLookup kernelLookup() {
        return kernelFirst ? fs.kernelLookup().orElse(null) : null;
    }

    /**
     * The kernel's answer for {@code absolute}, when this resolver asks one and it has one
     * ({@link KernelAsk#resolve}); null to walk.
     */
    private Resolution fromKernel(String absolute, Path spelled) {
        KernelLookup lookup = kernelLookup();
        return lookup == null ? null : KernelAsk.resolve(lookup, absolute, spelled);
    }

    /**
     * Forgets everything remembered; a no-op without a cache. A resolution that ends after this
     * returns and began after it was called answers from the filesystem as it is now; one running
     * concurrently may answer either way, but what it learned is not remembered.
     */
    public synchronized void invalidate() {
        if (cache != null) {
            cache = new ConcurrentHashMap<>();
        }
    }

    /**
     * Forgets what is remembered about {@code path} and everything beneath it (the same guarantee
     * as {@link #invalidate()} for those paths); a no-op without a cache.
     */
    public synchronized void invalidate(Path path) {
        Map<Path, Entry> old = cache;
        if (old != null) {
            Path p = path.toAbsolutePath().normalize();
            Map<Path, Entry> kept = new ConcurrentHashMap<>();
            old.forEach((k, v) -> {
                if (!k.startsWith(p)) {
                    kept.put(k, v);
                }
            });
            cache = kept;
        }
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
        if (asksKernel()) {
            // The kernel resolves the directory, then the request from where that led, as the
            // walk does. It counts links over both (the walk restarts at the request), which
            // differs only near ELOOP, where the kernel fails and the walk decides.
            Resolution known = fromKernel(joined(base, request), null);
            if (known != null) {
                return known;
            }
        }
        return walk(request, base).resolution();
    }

    /** Resolves an absolute request. */
    public Resolution resolve(Path absoluteRequest) {
        requireAbsolute(absoluteRequest);
        // The request itself is the answer when it has no link: a Path made once, its text kept.
        Resolution known = fromKernel(absoluteRequest.toString(), absoluteRequest);
        if (known != null) {
            return known;
        }
        return walk(absoluteRequest).resolution();
    }

    /**
     * {@link #resolve(Path, Path)}, and every symbolic link the resolution went through (those
     * met resolving {@code cwd} included): what a check needs that must look at each name a
     * link stood for, not only at where the path ends up.
     *
     * <p>The kernel's answer is taken only when it is the request's own spelling: a real path
     * has no link among its components, so then none was followed. Otherwise this walks, since
     * the kernel does not say which links it followed.
     */
    public Traced trace(Path request, Path cwd) {
        if (request.isAbsolute()) {
            return trace(request);
        }
        Path base = cwd.toAbsolutePath();
        Traced known = fromKernelUnlinked(joined(base, request), null);
        return known != null ? known : walk(request, base);
    }

    /** {@link #trace(Path, Path)} of an absolute request. */
    public Traced trace(Path absoluteRequest) {
        requireAbsolute(absoluteRequest);
        Traced known = fromKernelUnlinked(absoluteRequest.toString(), absoluteRequest);
        return known != null ? known : walk(absoluteRequest);
    }

    /** The kernel's answer for {@code absolute} when no link was followed ({@link KernelAsk#traceUnlinked}); null to walk. */
    private Traced fromKernelUnlinked(String absolute, Path spelled) {
        KernelLookup lookup = kernelLookup();
        return lookup == null ? null : KernelAsk.traceUnlinked(lookup, absolute, spelled);
    }

    private static String joined(Path base, Path request) {
        String rel = request.toString();
        String dir = base.toString();
        return rel.isEmpty() ? dir : dir.endsWith("/") ? dir + rel : dir + "/" + rel;
    }

    private static void requireAbsolute(Path request) {
        if (!request.isAbsolute()) {
            throw new IllegalArgumentException("request must be absolute (or give a working directory): " + request);
        }
    }

    private Traced walk(Path request, Path absoluteCwd) {
        Walk walk = new Walk(absoluteCwd.getRoot(), cache);
        if (walk.run(absoluteCwd.toString())) {
            return walk.traced(new Resolution.TooManyLinks(absoluteCwd.resolve(request), walk.reached));
        }
        walk.links = 0;
        if (walk.run(request.toString())) {
            return walk.traced(new Resolution.TooManyLinks(absoluteCwd.resolve(request), walk.reached));
        }
        return walk.traced(walk.result());
    }

    private Traced walk(Path absoluteRequest) {
        Walk walk = new Walk(absoluteRequest.getRoot(), cache);
        if (walk.run(absoluteRequest.toString())) {
            return walk.traced(new Resolution.TooManyLinks(absoluteRequest, walk.reached));
        }
        return walk.traced(walk.result());
    }

    /** One resolution in progress. The pending text is a stack of frames, like the kernel's link stack. */
    private final class Walk {
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
        /** Where each link followed lives (its resolved directory and its name), in the order met. */
        private List<Path> followed;

        private String[] texts = new String[4];
        private int[] positions = new int[4];
        private int top = -1;

        private final Map<Path, Entry> cache;

        Walk(Path root, Map<Path, Entry> cache) {
            this.root = root;
            this.dir = root;
            this.cache = cache;
        }

        /** What {@code lstat} (and {@code readlink}) say about {@code p}; {@link Entry#MISSING} when it cannot be reached. */
        private Entry lookup(Path p) {
            if (cache != null) {
                Entry known = cache.get(p);
                if (known != null) {
                    return known;
                }
            }
            Entry found = fs.lstat(p);
            if (found.exists() && cache != null) {
                if (cache.size() >= maxEntries) {
                    cache.clear();
                }
                cache.put(p, found);
            }
            return found;
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
            Entry entry = lookup(next);
            if (entry == Entry.MISSING) {
                broken = true;
                addTail(name);
                return false;
            }
            if (entry.target != null) {
                if (++links > MAX_LINKS) {
                    reached = next;
                    return true;
                }
                if (followed == null) {
                    followed = new ArrayList<>(2);
                }
                followed.add(next);
                String target = entry.target;
                if (!target.isEmpty() && target.charAt(0) == '/') {
                    dir = root;
                    dirIsDirectory = true;
                }
                push(target);
                return false;
            }
            dir = next;
            dirIsDirectory = entry.kind() == Entry.Kind.DIRECTORY;
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

        Traced traced(Resolution resolution) {
            return new Traced(resolution, followed == null ? List.of() : List.copyOf(followed));
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
