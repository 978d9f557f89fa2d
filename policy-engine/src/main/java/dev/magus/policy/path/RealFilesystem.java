package dev.magus.policy.path;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/** {@link Filesystem#real()}: the host's filesystem through {@code java.nio}, one or two system calls per entry. */
final class RealFilesystem implements Filesystem {
    static final RealFilesystem INSTANCE = new RealFilesystem();

    private RealFilesystem() {
    }

    @Override
    public Entry lstat(Path p) {
        switch (nativeLstat(p)) {
            case ABSENT:
                return Entry.MISSING;
            case DIRECTORY:
                return Entry.DIRECTORY;
            case FILE:
                return Entry.FILE;
            case OTHER:
                return Entry.OTHER;
            case LINK:
                return link(p);
            default:
                break;
        }
        try {
            BasicFileAttributes attrs = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (attrs.isSymbolicLink()) {
                return link(p);
            }
            return attrs.isDirectory() ? Entry.DIRECTORY : attrs.isRegularFile() ? Entry.FILE : Entry.OTHER;
        } catch (IOException missingOrUnreadable) {
            return Entry.MISSING;
        }
    }

    /** The link at {@code p} and its target; replaced between lstat and readlink (an IOException): not there. */
    private static Entry link(Path p) {
        try {
            String target = Files.readSymbolicLink(p).toString();
            return target.isEmpty() ? Entry.MISSING : Entry.link(target);
        } catch (IOException | UnsupportedOperationException replaced) {
            return Entry.MISSING;
        }
    }

    /**
     * The installed {@link DirectoryReader}'s one native {@code lstat} of {@code p}: its kind
     * (the same {@code st_mode} the JDK's {@code readAttributes} reads, so the same answer,
     * with one system call instead of two), or {@code ABSENT} for sure (ENOENT,
     * ENOTDIR: the JDK would say so with two exceptions, each filling its stack trace through a
     * server run's deep chain), or {@code UNSURE}, when the JDK is asked as before.
     */
    private static DirectoryReader.Lstat nativeLstat(Path p) {
        DirectoryReader reader = Installed.READER;
        if (reader == null || !p.isAbsolute() || p.getFileSystem() != DEFAULT) {
            return DirectoryReader.Lstat.UNSURE;
        }
        try {
            DirectoryReader.Lstat said = reader.lstat(p.toString());
            return said != null ? said : DirectoryReader.Lstat.UNSURE;
        } catch (RuntimeException | LinkageError broken) {
            return DirectoryReader.Lstat.UNSURE;
        }
    }

    private static final java.nio.file.FileSystem DEFAULT = java.nio.file.FileSystems.getDefault();

    @Override
    public Optional<String> read(Path file, int maxBytes) {
        if (lstat(file).kind() != Entry.Kind.FILE) {
            return Optional.empty();
        }
        try (SeekableByteChannel ch = Files.newByteChannel(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
                InputStream in = Channels.newInputStream(ch)) {
            return Optional.of(new String(in.readNBytes(maxBytes), StandardCharsets.UTF_8));
        } catch (IOException | UnsupportedOperationException unreadable) {
            // An unreadable file is one git itself could not use: nothing to grant.
            return Optional.empty();
        }
    }

    @Override
    public Optional<KernelLookup> kernelLookup() {
        return Installed.LOOKUP;
    }

    @Override
    public String toString() {
        return "Filesystem.real()";
    }

    /** The lookup the class path provides, looked for once, on first use (not when a resolver is made). */
    private static final class Installed {
        static final Optional<KernelLookup> LOOKUP = find();
        /** The native directory reader (landlock's), null without one: its {@code lstat} verdicts only. */
        static final DirectoryReader READER = reader();

        private static DirectoryReader reader() {
            try {
                return ServiceLoader.load(DirectoryReader.class, DirectoryReader.class.getClassLoader()).stream()
                        .map(ServiceLoader.Provider::get).filter(DirectoryReader::available).findFirst().orElse(null);
            } catch (ServiceConfigurationError | RuntimeException | LinkageError broken) {
                // No reader: every lstat goes to the JDK, as before.
                return null;
            }
        }

        private static Optional<KernelLookup> find() {
            try {
                return ServiceLoader.load(KernelLookup.class, KernelLookup.class.getClassLoader()).findFirst();
            } catch (ServiceConfigurationError | RuntimeException | LinkageError broken) {
                // A provider that cannot be loaded must not take resolution down: walk.
                return Optional.empty();
            }
        }
    }
}
