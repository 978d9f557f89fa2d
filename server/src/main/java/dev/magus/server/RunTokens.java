package dev.magus.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tokens a forwarded run's recursive magus says hello with, one per run, in place of the
 * server's own. The server's token would let a run's recursive magus ask for anything the
 * user may do, outside the domain of the run it comes from; a run's token says which run a
 * request comes from, so that the server can hold the request to that run's policy. A token
 * lives while its run's connection does. Kept as their SHA-256 digests, so that looking one
 * up takes no time that depends on how much of a guess was right.
 */
final class RunTokens {

    /** The run a token was minted for. */
    record Owner(long run) {
    }

    private final Map<String, Owner> live = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();

    /** A fresh token for run {@code run}. */
    String mint(long run) {
        byte[] b = new byte[32];
        random.nextBytes(b);
        String token = dev.magus.events.MagusEnv.RUN_TOKEN_PREFIX + HexFormat.of().formatHex(b);
        live.put(digest(token), new Owner(run));
        return token;
    }

    /** The run {@code presented} was minted for, while it lives. */
    Optional<Owner> owner(String presented) {
        return presented.isEmpty() ? Optional.empty() : Optional.ofNullable(live.get(digest(presented)));
    }

    /** {@code token} no longer says hello. */
    void revoke(String token) {
        live.remove(digest(token));
    }

    /** How many tokens live, for tests. */
    int size() {
        return live.size();
    }

    private static String digest(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
