package dev.magus.orchestrator.binding;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;

/**
 * A session's archive extraction: zip, tar, and tar with gzip, into a directory. The archive is
 * read under the session's read rules, and every entry is written through the session's files, so
 * the policy and the control files hold for each. Before that, each entry must stay inside the
 * target: a name that is absolute, climbs out with {@code ..}, or passes through a link that
 * leads out is refused; a link is made only when its text, read from where it sits, stays inside;
 * a hard link is written as a copy of an entry already extracted inside the target; device files
 * and pipes are refused; and the {@link ArchiveLimits} bound the entries and bytes, declared and
 * read. The first refusal stops the extraction, reported on the session's stream and thrown as a
 * {@link dev.magus.events.SandboxException} (MGS2002, {@code layer=binding}); what was extracted
 * before it stays, inside the target, and an entry cut off by a limit is removed.
 */
public final class SandboxArchives {
    private static final int GZIP_MAGIC = 0x1f8b;
    private static final int ZIP_MAGIC = 0x504b0304;

    private final SandboxFiles files;

    SandboxArchives(SandboxFiles files) {
        this.files = files;
    }

    /** What an extraction wrote. */
    public record Extracted(Path target, int entries, long bytes) {
    }

    /** {@link #extract(Path, Path, ArchiveLimits)} with {@link ArchiveLimits#DEFAULT}. */
    public Extracted extract(Path archive, Path target) throws IOException {
        return extract(archive, target, ArchiveLimits.DEFAULT);
    }

    /** Extracts {@code archive} (zip, tar or tar.gz, told by its first bytes) into {@code target}, created when missing. */
    public Extracted extract(Path archive, Path target, ArchiveLimits limits) throws IOException {
        files.createDirectories(target);
        Extraction x = new Extraction(files.resolve(target), target, limits);
        try (FileChannel channel = files.readChannel(archive)) {
            int magic = magic(channel);
            channel.position(0);
            if (magic == ZIP_MAGIC) {
                zip(channel, x);
            } else {
                InputStream in = new BufferedInputStream(Channels.newInputStream(channel));
                if ((magic >>> 16) == GZIP_MAGIC) {
                    in = new GZIPInputStream(in, 1 << 16);
                }
                tar(in, x);
            }
        }
        return new Extracted(target, x.entries, x.bytes);
    }

    private void zip(FileChannel channel, Extraction x) throws IOException {
        try (ZipFile zip = ZipFile.builder().setSeekableByteChannel(channel).get()) {
            // A zip says how many entries and bytes it holds before any is read: judged whole first.
            long declared = 0;
            int count = 0;
            for (Enumeration<ZipArchiveEntry> all = zip.getEntries(); all.hasMoreElements(); count++) {
                declared += Math.max(0, all.nextElement().getSize());
            }
            x.wholeArchive(count, declared);
            Enumeration<ZipArchiveEntry> entries = zip.getEntries();
            while (entries.hasMoreElements()) {
                ZipArchiveEntry e = entries.nextElement();
                Path dest = x.admit(e.getName());
                if (e.isUnixSymlink()) {
                    String text = new String(zip.getInputStream(e).readNBytes(4096), java.nio.charset.StandardCharsets.UTF_8);
                    x.link(e.getName(), dest, text);
                } else if (e.isDirectory()) {
                    files.createDirectories(dest);
                } else {
                    x.declared(e.getName(), dest, e.getSize());
                    try (InputStream in = zip.getInputStream(e)) {
                        x.write(e.getName(), dest, in);
                    }
                }
            }
        }
    }

    private void tar(InputStream in, Extraction x) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
                Path dest = x.admit(e.getName());
                if (e.isCharacterDevice() || e.isBlockDevice() || e.isFIFO()) {
                    throw files.refuse(Path.of(e.getName()), dest, "a device file or pipe in an archive is never extracted");
                } else if (e.isSymbolicLink()) {
                    x.link(e.getName(), dest, e.getLinkName());
                } else if (e.isLink()) {
                    x.hardLink(e.getName(), dest, e.getLinkName());
                } else if (e.isDirectory()) {
                    files.createDirectories(dest);
                } else if (e.isFile()) {
                    x.declared(e.getName(), dest, e.getSize());
                    x.write(e.getName(), dest, tar);
                } else {
                    throw files.refuse(Path.of(e.getName()), dest, "a special entry in an archive is never extracted");
                }
            }
        }
    }

    private static int magic(FileChannel channel) throws IOException {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4);
        while (b.hasRemaining() && channel.read(b) > 0) {
            // read up to four bytes
        }
        return b.position() < 4 ? 0 : b.getInt(0);
    }

    /** One extraction's counts and its target, resolved once. */
    private final class Extraction {
        private final Path root;
        private final Path asked;
        private final ArchiveLimits limits;
        int entries;
        long bytes;

        Extraction(Path root, Path asked, ArchiveLimits limits) {
            this.root = root;
            this.asked = asked;
            this.limits = limits;
        }

        /** Refuses an archive that declares more entries or bytes than the limits before anything is written. */
        void wholeArchive(int count, long declared) {
            if (count > limits.maxEntries()) {
                throw files.refuse(asked, root, "the archive has more than " + limits.maxEntries() + " entries (the limit): " + count);
            }
            if (declared > limits.maxBytes()) {
                throw files.refuse(asked, root, "the archive declares more than " + limits.maxBytes() + " bytes (the limit): " + declared);
            }
        }

        /** Where the entry goes, when its name stays inside the target; counts it. */
        Path admit(String name) throws IOException {
            if (++entries > limits.maxEntries()) {
                throw files.refuse(Path.of(name), root, "the archive has more than " + limits.maxEntries() + " entries (the limit)");
            }
            if (name.isEmpty() || name.indexOf('\0') >= 0 || name.startsWith("/")) {
                throw files.refuse(Path.of(name.replace('\0', '?')), root, "an archive entry's name is absolute or empty");
            }
            Path dest = root.resolve(name).normalize();
            if (!dest.startsWith(root)) {
                throw files.refuse(Path.of(name), dest, "the archive entry's name leaves the target " + asked);
            }
            // Through the links already made (by this archive, or there before): where it would land.
            Path parent = dest.getParent();
            if (!dest.equals(root) && !files.resolve(parent).startsWith(root)) {
                throw files.refuse(Path.of(name), files.resolve(parent), "the archive entry leads out of the target " + asked + " through a link");
            }
            if (Files.isSymbolicLink(dest)) {
                throw files.refuse(Path.of(name), dest, "the archive entry would be written through a link it or an earlier entry made");
            }
            return dest;
        }

        void link(String name, Path dest, String text) throws IOException {
            Path target = Path.of(text);
            if (text.isEmpty() || target.isAbsolute() || !dest.getParent().resolve(target).normalize().startsWith(root)) {
                throw files.refuse(Path.of(name), dest, "the archive's link to " + text + " leads out of the target " + asked);
            }
            files.createDirectories(dest.getParent());
            files.createLink(dest, target);
        }

        void hardLink(String name, Path dest, String linked) throws IOException {
            Path source = root.resolve(linked).normalize();
            if (linked.isEmpty() || linked.startsWith("/") || !source.startsWith(root) || !files.resolve(source).startsWith(root)
                    || !Files.isRegularFile(source, LinkOption.NOFOLLOW_LINKS)) {
                throw files.refuse(Path.of(name), dest, "the archive's hard link to " + linked + " names no file extracted inside the target " + asked);
            }
            try (InputStream in = files.newInputStream(source)) {
                declared(name, dest, Files.size(source));
                write(name, dest, in);
            }
        }

        void declared(String name, Path dest, long size) {
            if (size > limits.maxBytes() - bytes) {
                throw files.refuse(Path.of(name), dest, "the archive declares more than " + limits.maxBytes() + " bytes (the limit)");
            }
        }

        void write(String name, Path dest, InputStream in) throws IOException {
            files.createDirectories(dest.getParent());
            byte[] buffer = new byte[1 << 16];
            boolean complete = false;
            try (OutputStream out = files.newOutputStream(dest, false)) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    bytes += n;
                    if (bytes > limits.maxBytes()) {
                        throw files.refuse(Path.of(name), dest, "the archive holds more than " + limits.maxBytes() + " bytes (the limit)");
                    }
                    out.write(buffer, 0, n);
                }
                complete = true;
            } finally {
                if (!complete) {
                    Files.deleteIfExists(dest);
                }
            }
        }
    }
}
