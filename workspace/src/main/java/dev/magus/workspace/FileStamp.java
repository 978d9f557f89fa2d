package dev.magus.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * What a cache keyed on a file compares to tell that the file is still the one it read:
 * device, inode, size, modification and change time, of the name itself and, when the name is
 * a symbolic link, of what it leads to. Never the modification time alone: a tool may set it
 * back ({@code touch -r}, {@code cp -p}, an unpacked archive), and a file replaced by a rename
 * may carry an older one; the change time cannot be set from user space, and a rename brings
 * another inode.
 *
 * <p>Costs one {@code lstat} (two for a link), no open and no read.
 *
 * @param name   the name's own stamp ({@code lstat})
 * @param target what a link leads to ({@code stat}), empty when the name is not a link or
 *               leads nowhere
 */
public record FileStamp(Optional<Stat> name, Optional<Stat> target) {
    /** The fields compared; absent when there is no such file. */
    public record Stat(long dev, long ino, long size, long mtimeNanos, long ctimeNanos, int mode) {
        /**
         * The record's own form, written out: the generated one links through
         * {@code ObjectMethods} at its first call, milliseconds of every CLI run.
         */
        @Override
        public String toString() {
            return "Stat[dev=" + dev + ", ino=" + ino + ", size=" + size + ", mtimeNanos=" + mtimeNanos
                    + ", ctimeNanos=" + ctimeNanos + ", mode=" + mode + "]";
        }
    }

    /** The attributes {@link #of(Path)} reads with {@code lstat}; {@link #ofAttributes} takes them as read. */
    public static final String ATTRIBUTES = "unix:dev,ino,size,lastModifiedTime,ctime,mode";

    /**
     * {@link #of(Path)} from the name's own attributes as a caller already read them
     * ({@link #ATTRIBUTES}, without following a link): the very stamp {@link #of(Path)} takes,
     * without a second {@code lstat} of the same name (a workspace's magus.yaml was
     * found with one and stamped with another, twice per forwarded run). A link's target is
     * stamped here, as {@link #of(Path)} does.
     */
    public static FileStamp ofAttributes(Path file, Map<String, Object> lstat) {
        Optional<Stat> own;
        try {
            own = Optional.of(stat(lstat));
        } catch (RuntimeException e) {
            return of(file);
        }
        boolean link = (own.get().mode() & 0170000) == 0120000;
        return new FileStamp(own, link ? stat(file) : Optional.empty());
    }

    /** No file of that name. */
    public static final FileStamp ABSENT = new FileStamp(Optional.empty(), Optional.empty());

    /** The stamp of {@code file} now; {@link #ABSENT} when nothing is there (or it cannot be looked at). */
    public static FileStamp of(Path file) {
        Optional<Stat> own = stat(file, LinkOption.NOFOLLOW_LINKS);
        if (own.isEmpty()) {
            return ABSENT;
        }
        boolean link = (own.get().mode() & 0170000) == 0120000;
        return new FileStamp(own, link ? stat(file) : Optional.empty());
    }

    /**
     * {@link #of(Path)}, asking {@code lstat} first whether there is anything at all: a file
     * that is absent, the usual case of an optional config file ({@code ~/.gitconfig} on every
     * run of a server), is then {@link #ABSENT} without the JDK's lstat, which says so with two
     * exceptions and their stack traces. A name it finds is stamped by {@link #of(Path)}
     * itself, so the stamp is the very one {@link #of(Path)} gives.
     */
    public static FileStamp of(Path file, dev.magus.policy.path.DirectoryReader lstat) {
        if (file.isAbsolute() && lstat.absent(file.toString())) {
            return ABSENT;
        }
        return of(file);
    }

    /** The record's own form, written out (see {@link Stat#toString()}): a cache's key holds it. */
    @Override
    public String toString() {
        return "FileStamp[name=" + name + ", target=" + target + "]";
    }

    public boolean exists() {
        return name.isPresent();
    }

    private static Optional<Stat> stat(Path file, LinkOption... options) {
        try {
            return Optional.of(stat(Files.readAttributes(file, ATTRIBUTES, options)));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException
                | NullPointerException e) {
            return Optional.empty();
        }
    }

    private static Stat stat(Map<String, Object> a) {
        return new Stat(((Number) a.get("dev")).longValue(), ((Number) a.get("ino")).longValue(),
                ((Number) a.get("size")).longValue(), nanos(a.get("lastModifiedTime")), nanos(a.get("ctime")),
                ((Number) a.get("mode")).intValue());
    }

    private static long nanos(Object time) {
        return ((java.nio.file.attribute.FileTime) time).to(java.util.concurrent.TimeUnit.NANOSECONDS);
    }
}
