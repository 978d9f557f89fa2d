package dev.magus.workspace.lease;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.workspace.Hashes;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.audit.Readers;
import dev.magus.workspace.jobs.JobId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The lease markers of one magus cache dir:
 * {@code <state dir>/checkouts/<hash of the cache dir>/<hash of the checkout>.lease}. Under the
 * state dir, since the cache dir is in every run's write grant and a confined run could rewrite a
 * marker there; keyed by the cache dir as computed (not resolved: it may not exist yet), so
 * installations with different caches keep their leases apart. Each marker holds
 * {@code checkout=<resolved root>} and {@code job=<id>}; the root is checked on every read, so a
 * collision or a copied file binds nothing. Markers are created exclusively (a hard link from a
 * finished temp file, 0600; dirs 0700): two racing acquires cannot both win, and no reader sees
 * half a marker. One that cannot be read or parsed is MGS2004 naming the file: the lookup fails
 * closed.
 */
public final class LeaseMarkers {
    private static final String SUFFIX = ".lease";

    private final Path dir;

    public LeaseMarkers(StateDir state, Path cacheDir) {
        this.dir = state.checkouts(cacheDir);
    }

    /** Where this cache dir's markers live. */
    public Path dir() {
        return dir;
    }

    /** The marker file a checkout (already resolved) would have. */
    public Path fileFor(Path resolvedCheckout) {
        return dir.resolve(Hashes.of(resolvedCheckout.toString()) + SUFFIX);
    }

    /**
     * Binds {@code checkout} to {@code job}. Binding it again to the same job changes nothing.
     *
     * @throws SandboxException MGS2004 when the checkout is not a directory or is leased to another job
     */
    public Marker acquire(Path checkout, JobId job) {
        Path root = resolve(checkout);
        Path file = fileFor(root);
        Optional<Marker> existing = read(file, root);
        if (existing.isPresent()) {
            if (existing.get().job().equals(job)) {
                return existing.get();
            }
            throw refuse(root + " is already leased to job " + existing.get().job() + "; release it first", file);
        }
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path temp = Files.createTempFile(dir, ".acquire-", ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try {
                Files.writeString(temp, "checkout=" + root + "\njob=" + job + "\n", StandardCharsets.UTF_8);
                Files.createLink(file, temp);
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (FileAlreadyExistsException e) {
            Marker other = read(file, root).orElseThrow(() -> refuse("a lease on " + root + " appeared and vanished meanwhile", file));
            if (!other.job().equals(job)) {
                throw refuse(root + " was leased to job " + other.job() + " meanwhile; release it first", file);
            }
        } catch (IOException | UnsupportedOperationException e) {
            throw refuse("cannot write the lease on " + root + " to " + file + ": " + e, file);
        }
        return new Marker(root, job, file);
    }

    /**
     * Unbinds {@code checkout}.
     *
     * @return the lease it had
     * @throws SandboxException MGS2004 when it had none
     */
    public Marker release(Path checkout) {
        Path root = resolve(checkout);
        Path file = fileFor(root);
        Marker m = read(file, root).orElseThrow(() -> refuse(root + " has no lease", file));
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw refuse("cannot remove the lease on " + root + " (" + file + "): " + e, file);
        }
        return m;
    }

    /** The lease on exactly this (resolved) checkout root, if any. */
    public Optional<Marker> find(Path resolvedCheckout) {
        return read(fileFor(resolvedCheckout), resolvedCheckout);
    }

    /**
     * The lease that holds for a run in {@code resolvedDir}: on that directory or the nearest
     * ancestor, so a nested workspace inside a leased checkout is held to the same job. For a run
     * that carries the lease of {@code carried} from its parent
     * ({@link dev.magus.policy.lease.CarriedLease}), a marker this process may not read (a
     * confined nested magus: no run is granted the state dir) ends the walk with nothing, since
     * the carried lease already holds the checkout. Anywhere else an unreadable marker is MGS2004.
     */
    public Optional<Marker> covering(Path resolvedDir, Optional<Path> carried) {
        if (Readers.noEntry(dir)) {
            // No lease was ever taken with this cache dir: what NoSuchFileException below answers, without it.
            return Optional.empty();
        }
        try {
            Files.readAttributes(dir, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            // Not "no lease": a lease that cannot be read must not become the full grant.
            throw refuse("cannot read the leases in " + dir + ": " + e, dir);
        }
        for (Path p = resolvedDir; p != null; p = p.getParent()) {
            Optional<Marker> m;
            if (carried.isPresent() && carried.get().equals(p)) {
                Path file = fileFor(p);
                try {
                    Files.newByteChannel(file).close();
                } catch (java.nio.file.AccessDeniedException e) {
                    return Optional.empty();
                } catch (IOException e) {
                    // missing or otherwise: read() below says which
                }
            }
            m = find(p);
            if (m.isPresent()) {
                return m;
            }
        }
        return Optional.empty();
    }

    /** Every lease of this cache dir. */
    public List<Marker> list() {
        List<Marker> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files.filter(f -> f.getFileName().toString().endsWith(SUFFIX)).sorted()::iterator) {
                parse(f).ifPresent(out::add);
            }
        } catch (IOException e) {
            throw refuse("cannot list the leases in " + dir + ": " + e, dir);
        }
        return out;
    }

    private Optional<Marker> read(Path file, Path root) {
        Optional<Marker> m = parse(file);
        if (m.isPresent() && !m.get().checkout().equals(root)) {
            throw refuse("lease marker " + file + " names the checkout " + m.get().checkout() + ", not " + root
                    + ": it is not this checkout's", file);
        }
        return m;
    }

    private static Optional<Marker> parse(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw refuse("lease marker " + file + " cannot be read: " + e, file);
        }
        String checkout = null;
        String job = null;
        for (String l : lines) {
            if (l.startsWith("checkout=")) {
                checkout = l.substring("checkout=".length());
            } else if (l.startsWith("job=")) {
                job = l.substring("job=".length());
            }
        }
        Optional<JobId> id = job == null ? Optional.empty() : JobId.parse(job);
        if (checkout == null || !checkout.startsWith("/") || id.isEmpty()) {
            throw refuse("lease marker " + file + " is not a lease marker (want the lines checkout=/abs/path and job=N)", file);
        }
        return Optional.of(new Marker(Path.of(checkout), id.get(), file));
    }

    private static Path resolve(Path checkout) {
        try {
            Path root = checkout.toAbsolutePath().toRealPath();
            if (!Files.isDirectory(root)) {
                throw refuse(checkout + " is not a directory", checkout);
            }
            if (root.toString().indexOf('\n') >= 0) {
                throw refuse("a checkout path with a line break cannot be leased", checkout);
            }
            return root;
        } catch (IOException e) {
            throw refuse(checkout + " does not exist", checkout);
        }
    }

    private static SandboxException refuse(String message, Path subject) {
        return new SandboxException(Diagnostic.of(Code.MGS2004, message, subject.toString(), Operation.NONE, Layer.POLICY,
                subject.toString()));
    }
}
