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
        try {
            BasicFileAttributes attrs = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (attrs.isSymbolicLink()) {
                // Replaced between lstat and readlink: an IOException, handled as not there.
                String target = Files.readSymbolicLink(p).toString();
                return target.isEmpty() ? Entry.MISSING : Entry.link(target);
            }
            return attrs.isDirectory() ? Entry.DIRECTORY : attrs.isRegularFile() ? Entry.FILE : Entry.OTHER;
        } catch (IOException missingOrUnreadable) {
            return Entry.MISSING;
        }
    }

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
