package dev.magus.workspace.quarantine;

import dev.magus.workspace.StateDir;
import dev.magus.workspace.safefs.Unlinker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * The quarantine under a state dir: {@code quarantine/<run id>/manifest} and one payload per
 * entry ({@code quarantine/<run id>/<n>}), the run's version of a path exactly as it was
 * (file bytes, link target, directory tree, modes). Kept before the audit removes or replaces
 * anything, so that {@link #restore} can give it back; the I/O is what the run changed, never
 * the workspace.
 */
public final class Quarantine {
    private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

    /** Larger than this, what the audit takes is moved into the quarantine, never copied. */
    public static final long MAX_COPY = 64L * 1024 * 1024;

    private final Path root;

    private Quarantine(Path root) {
        this.root = root;
    }

    public static Quarantine in(StateDir state) {
        return new Quarantine(state.dir().resolve("quarantine"));
    }

    public Path root() {
        return root;
    }

    private Path runDir(String runId) {
        if (!RUN_ID.matcher(runId).matches()) {
            throw new IllegalArgumentException("not a run id: " + runId);
        }
        return root.resolve(runId);
    }

    /** Where one run's audit keeps what it takes; nothing is created until the first {@link Box#keep}. */
    public Box box(String runId) {
        return new Box(runId, runDir(runId));
    }

    /** What one run's audit is about to take out of the workspace, kept and not yet in the manifest. */
    public record Prepared(int index, Kept.Payload payload, long bytes, Path path) {
    }

    /** One run's share of the quarantine. Not thread-safe: one audit writes it. */
    public final class Box {
        private final String runId;
        private final Path dir;
        private int next = 1;

        private Box(String runId, Path dir) {
            this.runId = runId;
            this.dir = dir;
        }

        public String runId() {
            return runId;
        }

        /**
         * Copies what is at {@code path} now into the quarantine; call before changing it. What
         * is larger than {@link #MAX_COPY} (a sparse {@code truncate -s 100G magus.yaml}) is
         * moved in instead when the state dir is on the same filesystem, else recorded as
         * {@link Kept.Payload#NOT_KEPT}: copying it would cost what the run did not.
         */
        public Prepared keep(Path path) throws IOException {
            ensure();
            int index = next++;
            if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                return new Prepared(index, Kept.Payload.NONE, 0, path);
            }
            Path target = dir.resolve(Integer.toString(index));
            Trees.remove(target);
            long size = Trees.size(path);
            long bytes;
            if (size > MAX_COPY) {
                Path parent = path.getParent();
                if (!parent.toRealPath().equals(parent)) {
                    return new Prepared(index, Kept.Payload.NOT_KEPT, 0, path);
                }
                try {
                    Files.move(path, target, StandardCopyOption.ATOMIC_MOVE);
                } catch (IOException e) {
                    return new Prepared(index, Kept.Payload.NOT_KEPT, 0, path);
                }
                bytes = size;
            } else {
                bytes = Trees.copy(path, target);
            }
            Kept.Payload kind = Files.isSymbolicLink(target) ? Kept.Payload.LINK
                    : Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS) ? Kept.Payload.DIRECTORY : Kept.Payload.FILE;
            return new Prepared(index, kind, bytes, path);
        }

        /** Writes {@code p}'s manifest line, with what the audit left at its path now. */
        public Kept record(Prepared p, String code, String change, String what) throws IOException {
            Kept k = new Kept(p.index(), runId, Instant.now(), code, change, what, p.payload(), p.bytes(),
                    Fingerprint.of(p.path()), p.path());
            Files.writeString(dir.resolve("manifest"), Manifest.line(k), StandardCharsets.UTF_8,
                    StandardOpenOption.APPEND, StandardOpenOption.WRITE);
            return k;
        }

        /** Makes the run's directory and manifest on the first keep; numbers on after what the manifest holds. */
        private void ensure() throws IOException {
            Path manifest = dir.resolve("manifest");
            if (next == 1 && Files.isRegularFile(manifest, LinkOption.NOFOLLOW_LINKS)) {
                Manifest.parse(Files.readString(manifest, StandardCharsets.UTF_8)).ifPresent(
                        r -> r.entries().forEach(k -> next = Math.max(next, k.index() + 1)));
            }
            if (Files.isRegularFile(manifest, LinkOption.NOFOLLOW_LINKS)) {
                return;
            }
            createPrivate(root.getParent());
            createPrivate(root);
            createPrivate(dir);
            Files.writeString(manifest, Manifest.header(runId, Instant.now()), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        }
    }

    private static void createPrivate(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // made meanwhile
            }
        }
    }

    /** Every run in the quarantine, oldest first. */
    public List<Manifest.Run> runs() throws IOException {
        List<Manifest.Run> out = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return out;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(root)) {
            for (Path d : s) {
                String name = d.getFileName().toString();
                if (RUN_ID.matcher(name).matches() && Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
                    out.add(read(name).orElseGet(() -> new Manifest.Run(name, modified(d), List.of())));
                }
            }
        }
        out.sort(Comparator.comparing(Manifest.Run::created).thenComparing(Manifest.Run::runId));
        return out;
    }

    private static Instant modified(Path d) {
        try {
            return Files.getLastModifiedTime(d, LinkOption.NOFOLLOW_LINKS).toInstant();
        } catch (IOException e) {
            return Instant.EPOCH;
        }
    }

    /** One run's manifest; empty when the run has none. */
    public Optional<Manifest.Run> read(String runId) throws IOException {
        Path m = runDir(runId).resolve("manifest");
        if (!Files.isRegularFile(m, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        return Manifest.parse(Files.readString(m, StandardCharsets.UTF_8));
    }

    /** Where an entry's payload lies; empty for one without. */
    public Optional<Path> payload(Kept k) {
        return k.payloadName().map(n -> runDir(k.runId()).resolve(n));
    }

    /** What {@link #restore} did with one entry. */
    public sealed interface Restored permits Restored.Done, Restored.Refused {
        Kept entry();

        record Done(Kept entry) implements Restored {
        }

        record Refused(Kept entry, String why) implements Restored {
        }
    }

    /**
     * Gives the run's version of {@code k}'s path back, byte for byte with its modes, or removes
     * what the audit put there for an entry without a payload. Refuses when the path is no longer
     * what the audit left, unless {@code force}, and always when a directory above it is a link or
     * not a directory.
     *
     * <p>Nothing is written by a path a later process could swap: the directories down to the
     * parent are opened one at a time without following a link; the run's version is copied under
     * a fresh exclusive name beside the entry in that open parent, confirmed there, and renamed over
     * the entry relative to it. A parent swapped for a link fails the restore and overwrites
     * nothing. Forced, a missing directory on the way is made only beneath real directories.
     */
    public Restored restore(Kept k, boolean force) throws IOException {
        Path path = k.path();
        Path parent = path.getParent();
        if (!path.isAbsolute() || parent == null) {
            return new Restored.Refused(k, "its path is not absolute");
        }
        Optional<String> why = realDirectories(parent, force);
        if (why.isPresent()) {
            return new Restored.Refused(k, why.get());
        }
        if (k.payload() == Kept.Payload.NOT_KEPT) {
            return new Restored.Refused(k, "it was too large to keep and on another filesystem, so it was not kept");
        }
        Optional<Path> payload = payload(k);
        if (payload.isPresent() && !Files.exists(payload.get(), LinkOption.NOFOLLOW_LINKS)) {
            return new Restored.Refused(k, "its payload is missing from the quarantine");
        }
        SecureDirectoryStream<Path> dir;
        try {
            dir = Unlinker.openParentBeneath(path.getRoot(), path);
        } catch (IOException e) {
            return new Restored.Refused(k, "a directory above it is no longer a real directory (" + e.getMessage()
                    + "), so nothing is written through it");
        }
        try (dir) {
            Object held = dir.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey();
            if (!sameFile(parent, held)) {
                return new Restored.Refused(k, "its directory " + parent + " was replaced while restoring, so nothing is"
                        + " written through it");
            }
            String now = Fingerprint.of(path);
            if (!sameFile(parent, held)) {
                return new Restored.Refused(k, "its directory " + parent + " was replaced while restoring, so nothing is"
                        + " written through it");
            }
            if (!force && !now.equals(k.left())) {
                return new Restored.Refused(k, "it changed since the audit left it (" + k.left() + ", now " + now
                        + "); --force overwrites it");
            }
            Path name = path.getFileName();
            if (payload.isEmpty()) {
                Unlinker.removeIn(dir, name);
                return new Restored.Done(k);
            }
            Path temp = Path.of(".magus-quarantine-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
            Path byPath = parent.resolve(temp.toString());
            Trees.copy(payload.get(), byPath);
            try {
                Object made = Files.readAttributes(byPath, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
                Object there = dir.getFileAttributeView(temp, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .readAttributes().fileKey();
                if (made == null || !made.equals(there)) {
                    return new Restored.Refused(k, "its directory " + parent + " was replaced while restoring, so"
                            + " nothing is written through it");
                }
                BasicFileAttributes at = null;
                try {
                    at = dir.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                            .readAttributes();
                } catch (java.nio.file.NoSuchFileException e) {
                    // nothing there now
                }
                if (at != null && at.isDirectory()) {
                    Unlinker.removeIn(dir, name);
                }
                dir.move(temp, dir, name);
            } finally {
                Unlinker.removeIn(dir, temp);
            }
        }
        return new Restored.Done(k);
    }

    /**
     * Why a restore cannot write beneath {@code dir}: a directory on the way from {@code /} is a
     * symbolic link or no directory; or one is missing and {@code force} is not given (with it,
     * each missing one is made, beneath the real directories just checked).
     */
    private static Optional<String> realDirectories(Path dir, boolean force) throws IOException {
        Path p = dir.getRoot();
        for (Path c : dir) {
            p = p.resolve(c.toString());
            BasicFileAttributes a;
            try {
                a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (java.nio.file.NoSuchFileException e) {
                if (!force) {
                    return Optional.of("its directory " + dir + " is gone; --force makes it again");
                }
                Files.createDirectory(p);
                continue;
            }
            if (a.isSymbolicLink()) {
                return Optional.of("a directory above it, " + p + ", is a symbolic link now (to "
                        + Files.readSymbolicLink(p) + "), so nothing is written through it");
            }
            if (!a.isDirectory()) {
                return Optional.of("a directory above it, " + p + ", is no longer a directory");
            }
        }
        return Optional.empty();
    }

    private static boolean sameFile(Path dir, Object key) throws IOException {
        Object byPath = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        return key != null && key.equals(byPath);
    }

    /** Removes a run's quarantine; whether there was one. */
    public boolean drop(String runId) throws IOException {
        Path d = runDir(runId);
        if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        Trees.remove(d);
        return true;
    }

    /** A run {@link #prune} removed, and why. */
    public record Pruned(String runId, Instant created, long bytes, String why) {
    }

    /**
     * Removes, oldest first, the runs older than the retention's age, then the runs beyond its
     * size; the runs in {@code spare} (the one being audited) are never removed.
     */
    public List<Pruned> prune(Retention retention, Instant now, Set<String> spare) throws IOException {
        Objects.requireNonNull(retention, "retention");
        List<Manifest.Run> runs = runs();
        List<Pruned> out = new ArrayList<>();
        long total = 0;
        for (Manifest.Run r : runs) {
            total += r.bytes();
        }
        Instant oldest = now.minus(retention.maxAge());
        for (Manifest.Run r : runs) {
            if (spare.contains(r.runId())) {
                continue;
            }
            String why = null;
            if (r.created().isBefore(oldest)) {
                why = "older than " + retention.maxAge().toDays() + " days";
            } else if (total > retention.maxBytes()) {
                why = "the quarantine holds more than " + retention.maxBytes() + " bytes";
            }
            if (why != null) {
                drop(r.runId());
                total -= r.bytes();
                out.add(new Pruned(r.runId(), r.created(), r.bytes(), why));
            }
        }
        return out;
    }
}
