package dev.magus.workspace;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Directory and file names derived from paths: SHA-256, the first 128 bits in hex.
 *
 * <p>Remembered by their exact text ({@link #MEMO}): a server asks for the same few names on
 * every run (the audit's kept walk and its unaudited list, the lease markers' directory), and
 * the digest with its provider lookup was ~2 % of the run's thread (issue 15). The answer is a
 * pure function of the text, so a remembered one is the one a new digest would give.
 */
public final class Hashes {
    /** At most this many texts are remembered; past it the memo starts again empty. */
    static final int MEMO_SIZE = 256;
    private static final Map<String, String> MEMO = new ConcurrentHashMap<>();

    private Hashes() {
    }

    public static String of(String text) {
        String known = MEMO.get(text);
        if (known != null) {
            return known;
        }
        String h = digest(text);
        if (MEMO.size() >= MEMO_SIZE) {
            MEMO.clear();
        }
        MEMO.put(text, h);
        return h;
    }

    /** The name, computed anew. */
    static String digest(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
