package dev.magus.workspace.audit;

import dev.magus.policy.path.DirectoryReader.Kind;
import dev.magus.policy.path.DirectoryReader.Stamp;
import dev.magus.policy.path.DirectoryReader;
import dev.magus.workspace.safefs.Unlinker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Puts control entries back as the snapshot before the run had them ({@link Comparison}
 * decides what). It never writes through a link: every directory from the entry's root down
 * must be a real directory, or nothing is written and the change is reported not restored. A
 * file or link is created under a fresh name ({@code O_CREAT|O_EXCL}) and renamed over the
 * entry; what the child created is removed relative to directories held open without
 * following links ({@link Unlinker}). Nothing outside the roots is touched.
 *
 * <p>A regular file is put back relative to its parent held open ({@link #putBeneath}:
 * {@code openat}, {@code fchmod}, {@code renameat}), so a link planted above it fails the
 * restore. A link, a directory, and a file with set-ID or sticky bits are still put back by
 * path after the check (the JDK's relative API cannot make them): a process that outlived the
 * run could race that, but it is still confined and would only get the entry's earlier form.
 */
final class Restorer {
    private final DirectoryReader reader;
    private final AncestorCheck ancestors;

    Restorer(DirectoryReader reader, AncestorCheck ancestors) {
        this.reader = reader;
        this.ancestors = ancestors;
    }

    /** Undoes {@code change}; empty when done, else why not. */
    Optional<String> undo(Change change, Snapshot before) {
        try {
            if (!ancestors.realDirectoriesUpTo(change.path())) {
                return Optional.of("a directory above it is no longer a real directory");
            }
            if (change instanceof Change.Created c) {
                remove(c.path());
                return Optional.empty();
            }
            Node was = change instanceof Change.Removed r ? r.was() : ((Change.Changed) change).was();
            if (change instanceof Change.Changed ch && ch.aspects().equals(java.util.Set.of(Change.Aspect.TARGET))) {
                // The link is as it was; what it leads to is not.
                return putTarget((Node.Link) was);
            }
            Optional<String> failed = put(change.path(), was);
            if (failed.isEmpty() && change instanceof Change.Changed ch
                    && ch.aspects().contains(Change.Aspect.TARGET) && was instanceof Node.Link l) {
                failed = putTarget(l);
            }
            if (failed.isPresent()) {
                return failed;
            }
            if (was instanceof Node.Directory && change.beneath() > 0) {
                // What was beneath the directory that went away, in path order: parents first.
                Path dir = change.path();
                for (Map.Entry<Path, Snapshot.Recorded> e : before.entries().tailMap(dir).entrySet()) {
                    Path p = e.getKey();
                    if (p.equals(dir)) {
                        continue;
                    }
                    if (!p.startsWith(dir)) {
                        break;
                    }
                    Optional<String> f = put(p, e.getValue().node());
                    if (f.isPresent()) {
                        return Optional.of(dir.relativize(p) + ": " + f.get());
                    }
                }
            }
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.of(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
    }

    /** Whether every directory from the entry's root down to {@code path} is a real directory, no link. */
    boolean beneathRealDirectories(Path path) {
        try {
            return ancestors.realDirectoriesUpTo(path);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Makes {@code path} the regular file {@code f} (a config given its judged text); empty when done, else why not. */
    Optional<String> write(Path path, Node.File f) {
        try {
            if (!ancestors.realDirectoriesUpTo(path)) {
                return Optional.of("a directory above it is no longer a real directory");
            }
            return put(path, f);
        } catch (IOException | RuntimeException e) {
            return Optional.of(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
    }

    /**
     * Puts back the regular file a control link resolved to before the run, only where the
     * audit may write: inside the workspace or one of its git dirs, beneath real directories
     * only (the recorded path has every link resolved, and {@link #put} replaces the file by a
     * rename, so nothing is written through a link). Elsewhere it is only reported.
     */
    private Optional<String> putTarget(Node.Link was) throws IOException {
        if (was.resolved().isEmpty()) {
            return Optional.of("it led to no regular file before the run, so there is nothing to put back");
        }
        Node.Resolved r = was.resolved().get();
        if (ancestors.rootOf(r.path()).isEmpty() || ancestors.rootOf(r.path()).get().equals(r.path())) {
            return Optional.of("the file it links to, " + r.path()
                    + ", lies outside the workspace and its git dirs, so it is only reported");
        }
        if (!ancestors.realDirectoriesUpTo(r.path())) {
            return Optional.of("a directory above the file it links to, " + r.path()
                    + ", is no longer a real directory, so it is only reported");
        }
        return put(r.path(), new Node.File(r.permissions(), r.content()));
    }

    /** Makes {@code path} be {@code node}. */
    private Optional<String> put(Path path, Node node) throws IOException {
        Optional<Stamp> now = reader.stat(path.toString());
        if (node instanceof Node.Directory d) {
            if (now.isPresent() && now.get().kind() != Kind.DIRECTORY) {
                remove(path);
                now = Optional.empty();
            }
            if (now.isEmpty()) {
                Files.createDirectory(path);
            }
            Files.setAttribute(path, "unix:mode", d.permissions(), LinkOption.NOFOLLOW_LINKS);
            return Optional.empty();
        }
        if (node instanceof Node.Other) {
            return Optional.of("a special file cannot be made again");
        }
        if (node instanceof Node.File f && f.content().bytes().isEmpty()) {
            return Optional.of("larger than " + Node.Content.KEEP_LIMIT + " bytes, so not kept");
        }
        Optional<Path> root = ancestors.rootOf(path);
        if (node instanceof Node.File f && root.isPresent() && !root.get().equals(path)
                && (f.permissions() & ~0777) == 0) {
            putBeneath(root.get(), path, f);
            return Optional.empty();
        }
        Path temp = temp(path);
        try {
            if (node instanceof Node.Link l) {
                Files.createSymbolicLink(temp, Path.of(l.target()));
            } else {
                Node.File f = (Node.File) node;
                try (SeekableByteChannel ch = Files.newByteChannel(temp, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                    ByteBuffer b = ByteBuffer.wrap(f.content().bytes().orElseThrow());
                    while (b.hasRemaining()) {
                        ch.write(b);
                    }
                }
                Files.setAttribute(temp, "unix:mode", f.permissions(), LinkOption.NOFOLLOW_LINKS);
            }
            if (now.isPresent() && now.get().kind() == Kind.DIRECTORY) {
                remove(path);
            }
            Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            temp = null;
            return Optional.empty();
        } finally {
            if (temp != null) {
                Files.deleteIfExists(temp);
            }
        }
    }

    /**
     * Makes {@code path} (beneath {@code root}) the regular file {@code f}, every step relative
     * to its parent held open: created under a fresh name ({@code O_CREAT|O_EXCL|O_NOFOLLOW}),
     * written, given its mode, renamed over the entry (a directory there removed first, relative
     * to the same parent). A link anywhere on the way from {@code root} fails it.
     */
    static void putBeneath(Path root, Path path, Node.File f) throws IOException {
        byte[] content = f.content().bytes().orElseThrow();
        try (java.nio.file.SecureDirectoryStream<Path> dir = Unlinker.openParentBeneath(root, path)) {
            Path name = path.getFileName();
            Path temp = null;
            for (int i = 0; i < 100 && temp == null; i++) {
                Path t = Path.of(".magus-restore-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
                try (SeekableByteChannel ch = dir.newByteChannel(t, java.util.Set.of(StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS))) {
                    temp = t;
                    ByteBuffer b = ByteBuffer.wrap(content);
                    while (b.hasRemaining()) {
                        ch.write(b);
                    }
                } catch (FileAlreadyExistsException e) {
                    // another name
                }
            }
            if (temp == null) {
                throw new FileAlreadyExistsException(path.toString(), null, "no free name beside it");
            }
            boolean moved = false;
            try {
                dir.getFileAttributeView(temp, java.nio.file.attribute.PosixFileAttributeView.class,
                        LinkOption.NOFOLLOW_LINKS).setPermissions(permissions(f.permissions()));
                java.nio.file.attribute.BasicFileAttributes there = null;
                try {
                    there = dir.getFileAttributeView(name, java.nio.file.attribute.BasicFileAttributeView.class,
                            LinkOption.NOFOLLOW_LINKS).readAttributes();
                } catch (java.nio.file.NoSuchFileException e) {
                    // nothing there now
                }
                if (there != null && there.isDirectory()) {
                    Unlinker.removeIn(dir, name);
                }
                dir.move(temp, dir, name);
                moved = true;
            } finally {
                if (!moved) {
                    try {
                        dir.deleteFile(temp);
                    } catch (IOException e) {
                        // the failure above is what is reported
                    }
                }
            }
        }
    }

    /** The nine {@code rwx} bits of {@code mode}. */
    private static java.util.Set<java.nio.file.attribute.PosixFilePermission> permissions(int mode) {
        java.util.Set<java.nio.file.attribute.PosixFilePermission> out = java.util.EnumSet.noneOf(
                java.nio.file.attribute.PosixFilePermission.class);
        java.nio.file.attribute.PosixFilePermission[] order = {
                java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE,
                java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE,
                java.nio.file.attribute.PosixFilePermission.OTHERS_READ,
                java.nio.file.attribute.PosixFilePermission.GROUP_EXECUTE,
                java.nio.file.attribute.PosixFilePermission.GROUP_WRITE,
                java.nio.file.attribute.PosixFilePermission.GROUP_READ,
                java.nio.file.attribute.PosixFilePermission.OWNER_EXECUTE,
                java.nio.file.attribute.PosixFilePermission.OWNER_WRITE,
                java.nio.file.attribute.PosixFilePermission.OWNER_READ};
        for (int i = 0; i < order.length; i++) {
            if ((mode & (1 << i)) != 0) {
                out.add(order[i]);
            }
        }
        return out;
    }

    private static Path temp(Path path) throws IOException {
        for (int i = 0; i < 100; i++) {
            Path t = path.resolveSibling(".magus-restore-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
            if (!Files.exists(t, LinkOption.NOFOLLOW_LINKS)) {
                return t;
            }
        }
        throw new FileAlreadyExistsException(path.toString(), null, "no free name beside it");
    }

    /** Removes {@code path} and, for a directory, everything beneath it; links are removed, never followed. */
    static void removeEntry(Path path) throws IOException {
        Unlinker.remove(path);
    }

    /**
     * As {@link #removeEntry(Path)}, every directory from the entry's root down opened without
     * following a link ({@link Unlinker#removeBeneath}).
     */
    private void remove(Path path) throws IOException {
        Optional<Path> root = ancestors.rootOf(path);
        if (root.isPresent() && !root.get().equals(path)) {
            Unlinker.removeBeneath(root.get(), path);
        } else {
            Unlinker.remove(path);
        }
    }
}
