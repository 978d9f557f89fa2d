package dev.magus.workspace;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Directory and file names derived from paths: SHA-256, the first 128 bits in hex. */
public final class Hashes {
    private Hashes() {
    }

    public static String of(String text) {
        // A pure function of the text: an answer is given again for an equal text (a server hashes
        // the same few paths on every run: the cache dir for the lease markers, the workspace for
        // the audit's files). Bounded: emptied when full, then filled anew.
        String known = KNOWN.get(text);
        if (known != null) {
            return known;
        }
        String hash = digest(text);
        if (KNOWN.size() >= LIMIT) {
            KNOWN.clear();
        }
        KNOWN.put(text, hash);
        return hash;
    }

    /** How many texts {@link #of} remembers at most. */
    static final int LIMIT = 256;

    private static final Map<String, String> KNOWN = new ConcurrentHashMap<>();

    /** SHA-256 of {@code text} computed now, never the memo's (tests compare the two). */
    static String digest(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
