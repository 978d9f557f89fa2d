package dev.magus.server.socket;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The server's token: 32 random bytes from {@link SecureRandom}, written hex-encoded to
 * {@code <socket>.token} (0600) at each start, so a token read before a restart is worthless
 * after it. Reaching the socket is not enough to use it: every connection's first frame must
 * carry the token.
 */
public final class Token {

    private final byte[] value;

    private Token(byte[] value) {
        this.value = value;
    }

    /** A fresh random token. */
    public static Token generate() {
        byte[] b = new byte[32];
        // Made here, not in a static field: a client that only reads the token never loads the providers.
        new SecureRandom().nextBytes(b);
        return new Token(HexFormat.of().formatHex(b).getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Writes the token to {@code file} with mode 0600: created under another name with that mode
     * from the start and moved into place, so there is no moment at which it is readable by
     * others, and a reader never sees half a token.
     */
    public void write(Path file) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".new");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(tmp, value);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The token in {@code file}, when there is a regular file to read. */
    public static Optional<String> read(Path file) {
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.empty();
            }
            return Optional.of(Files.readString(file, StandardCharsets.US_ASCII).trim());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Whether {@code presented} is this token, in time that does not depend on where they differ. */
    public boolean matches(String presented) {
        return MessageDigest.isEqual(value, presented.getBytes(StandardCharsets.US_ASCII));
    }

    /** The token's text, for a client in the same process (tests) and a nested magus's MAGUS_PROC_TOKEN. */
    public String text() {
        return new String(value, StandardCharsets.US_ASCII);
    }

    /** Never the value. */
    @Override
    public String toString() {
        return "Token[…]";
    }
}
