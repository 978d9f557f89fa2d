package dev.magus.policy.path;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Lists a directory and stats an entry without following a link at its end, fast enough to walk
 * a {@code node_modules}-sized workspace twice per run: {@code getdents64} gives each entry's
 * type with its name, where {@link java.nio.file.DirectoryStream} needs an {@code lstat} per
 * entry. Found with {@link java.util.ServiceLoader} by the control-file audit; the native
 * implementation lives in landlock ({@code GetdentsReader}), this pure module holds only the seam
 * both sides see. Implementations are thread-safe, have a public no-argument constructor, and
 * answer empty rather than throw for a failed call.
 */
public interface DirectoryReader {

    /** What kind of entry a directory listing names. */
    enum Kind {
        DIRECTORY, FILE, LINK, OTHER,
        /** The filesystem did not say ({@code DT_UNKNOWN}): the caller stats the entry. */
        UNKNOWN
    }

    /** One name in a directory, with its inode ({@code d_ino}) as the listing gives it. */
    record Entry(String name, Kind kind, long ino) {
        public Entry {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(kind, "kind");
        }
    }

    /**
     * What {@code lstat} says of an entry, as much as the audit compares. Times are
     * nanoseconds since the epoch.
     *
     * @param mode  {@code st_mode}: the type bits and the permission bits
     * @param nlink for a directory, 2 + its subdirectories
     * @param size  for a directory, the size of its entry table (grows as names are added)
     */
    record Stamp(long dev, long ino, int mode, long nlink, long size, long mtimeNanos, long ctimeNanos) {
        public static final int S_IFMT = 0170000;
        public static final int S_IFDIR = 0040000;
        public static final int S_IFREG = 0100000;
        public static final int S_IFLNK = 0120000;

        public Kind kind() {
            return switch (mode & S_IFMT) {
                case S_IFDIR -> Kind.DIRECTORY;
                case S_IFREG -> Kind.FILE;
                case S_IFLNK -> Kind.LINK;
                default -> Kind.OTHER;
            };
        }

        /** The permission bits (with set-uid, set-gid and sticky). */
        public int permissions() {
            return mode & 07777;
        }
    }

    /**
     * A directory's names. No stamp of its own: a walk that stamped every directory as it
     * listed it would pay one more system call per directory, and the audit compares times
     * with the moment its walk ended instead.
     */
    record Listing(List<Entry> entries) {
        public Listing {
            entries = List.copyOf(entries);
        }
    }

    /**
     * Whether this reader works here (its natives load on this platform). One that is not
     * available is passed over for the next, and finally for the pure-Java reader: a reader
     * that silently listed nothing would hide every control file.
     */
    default boolean available() {
        return true;
    }

    /**
     * {@code lstat(absolutePath)}: the last component is never followed; the ones before it are
     * walked as the kernel walks them (the audit checks those itself where it matters).
     */
    Optional<Stamp> stat(String absolutePath);

    /**
     * What {@code lstat} of a name says, for a caller that asks whether nothing is there before it
     * asks the JDK (which says so with exceptions). Only the kernel's own ENOENT and ENOTDIR are an
     * answer; anything else leaves the question to the JDK.
     */
    enum Presence {
        /** {@code lstat} found an entry of that name (a dangling link included). */
        FOUND,
        /** ENOENT: no entry of that name, or a directory on the way is missing. */
        NO_ENTRY,
        /** ENOTDIR: a name on the way is not a directory. */
        NOT_A_DIRECTORY,
        /**
         * Any other error (EACCES, ELOOP, ENAMETOOLONG, …), or a name this reader cannot pass
         * to the kernel unchanged (not absolute, a NUL, too long, not encodable as the JVM
         * encodes file names): ask the JDK.
         */
        UNSURE
    }

    /**
     * {@code lstat(absolutePath)}'s verdict on whether there is anything at that name, never
     * following a link at its end. Never throws. The default, for a reader without natives,
     * is always {@link Presence#UNSURE}.
     */
    default Presence presence(String absolutePath) {
        return Presence.UNSURE;
    }

    /**
     * Whether {@code lstat(absolutePath)} failed because nothing is there ({@link #presence} said
     * {@link Presence#NO_ENTRY} or {@link Presence#NOT_A_DIRECTORY}). False whenever it cannot say
     * so for certain: the caller then asks the JDK, whose answer this one may only agree with.
     */
    default boolean absent(String absolutePath) {
        Presence said = presence(absolutePath);
        return said == Presence.NO_ENTRY || said == Presence.NOT_A_DIRECTORY;
    }

    /** What one {@code lstat} said of a path: {@link #lstat}. */
    enum Lstat {
        DIRECTORY, FILE, LINK, OTHER,
        /** {@link #absent}: nothing there for sure. */
        ABSENT,
        /** No sure answer: the caller asks the JDK, whose answer this one may only ever agree with. */
        UNSURE
    }

    /**
     * What {@code lstat(absolutePath)} says, in one system call: the kind of what is there (a link
     * not followed), {@link Lstat#ABSENT} exactly when {@link #absent} would say so, or
     * {@link Lstat#UNSURE}; the walk asks this rather than stat an entry twice through the JDK.
     * The default answers only {@code ABSENT} or {@code UNSURE}.
     */
    default Lstat lstat(String absolutePath) {
        return absent(absolutePath) ? Lstat.ABSENT : Lstat.UNSURE;
    }

    /**
     * Opens {@code absolutePath} as a directory without following a link at its end
     * ({@code O_DIRECTORY|O_NOFOLLOW}), and lists it. Empty when that fails: not a directory,
     * a link, gone, no permission, a name this reader cannot pass to the kernel unchanged.
     * {@code .} and {@code ..} are left out.
     */
    Optional<Listing> list(String absolutePath);
}
