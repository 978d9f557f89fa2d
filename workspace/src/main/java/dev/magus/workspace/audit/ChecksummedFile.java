package dev.magus.workspace.audit;

import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32;

/**
 * The audit caches' file: a body and the CRC32 of it, written to a temporary name and renamed
 * over the old one, so a reader sees a whole file or the previous one (not synced: a torn file
 * fails its checksum). Links are never followed.
 */
final class ChecksummedFile {
    private ChecksummedFile() {
    }

    /** The whole file, checksum included, or null when it is missing, over {@code max} bytes or torn. */
    static byte[] read(Path f, long max) throws IOException {
        try (InputStream raw = Files.newInputStream(f, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            long size = Files.size(f);
            if (size < 8 || size > max) {
                return null;
            }
            byte[] all = raw.readNBytes((int) size + 1);
            if (all.length != size) {
                return null;
            }
            CRC32 crc = new CRC32();
            crc.update(all, 0, all.length - 8);
            return new DataInputStream(new ByteArrayInputStream(all, all.length - 8, 8)).readLong() == crc.getValue()
                    ? all : null;
        }
    }

    /**
     * Writes {@code body} and its checksum to {@code target} in {@code dir}; a body over
     * {@code max} removes the file instead.
     *
     * @return whether the file now holds {@code body}
     */
    static boolean write(Path dir, Path target, String tempPrefix, byte[] body, long max) throws IOException {
        if (body.length + 8 > max) {
            Files.deleteIfExists(target);
            return false;
        }
        CRC32 crc = new CRC32();
        crc.update(body);
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
        }
        Path temp = Files.createTempFile(dir, tempPrefix, ".tmp");
        try {
            try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(temp, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS))) {
                o.write(body);
                new DataOutputStream(o).writeLong(crc.getValue());
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                return false;
            }
        } finally {
            Files.deleteIfExists(temp);
        }
        return true;
    }
}
