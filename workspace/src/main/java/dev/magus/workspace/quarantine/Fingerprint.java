package dev.magus.workspace.quarantine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What is at a path, in one line, to tell whether it changed since the audit left it:
 * {@code absent}, {@code file MODE SHA256}, {@code directory MODE}, {@code link TARGET} or
 * {@code other}. A link is never followed.
 */
public final class Fingerprint {
    public static final String ABSENT = "absent";

    private Fingerprint() {
    }

    public static String of(Path path) throws IOException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return ABSENT;
        }
        if (a.isSymbolicLink()) {
            return "link " + Files.readSymbolicLink(path);
        }
        if (a.isDirectory()) {
            return "directory " + Integer.toOctalString(mode(path));
        }
        if (a.isRegularFile()) {
            return "file " + Integer.toOctalString(mode(path)) + " " + sha256(path);
        }
        return "other";
    }

    static int mode(Path path) throws IOException {
        return ((Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS)) & 07777;
    }

    private static String sha256(Path path) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        try (InputStream in = Files.newInputStream(path, LinkOption.NOFOLLOW_LINKS)) {
            byte[] buf = new byte[65536];
            for (int n; (n = in.read(buf)) > 0;) {
                md.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
