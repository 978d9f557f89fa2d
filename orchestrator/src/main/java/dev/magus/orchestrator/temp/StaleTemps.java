package dev.magus.orchestrator.temp;

import dev.magus.orchestrator.orphans.ProcessIdentity;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * Removes the private temp dirs that a magus killed before it could remove them left behind.
 * The {@link Watchdog} removes them the moment magus dies; this is the fallback for when the
 * watchdog died with it (killed together, a reboot, an out-of-memory kill of both).
 *
 * <p>A dir is stale only when its name carries the identity of the magus that made it
 * ({@link Trees#createPrivateTemp}) and that process is certainly gone: same pid namespace, and
 * the pid free or taken by a process that started at another moment. Anything else stays: an
 * older name without an identity, another namespace's dir, another user's, a link, a dir of a
 * magus still running (this one included). What a removal cannot delete stays too, as after a
 * run.
 */
public final class StaleTemps {
    /** Temp bases already swept by this owner: one sweep each is enough, later dirs have live owners or a watchdog. */
    private final Set<Path> swept = ConcurrentHashMap.newKeySet();

    /** A sweeper that has swept nothing yet; its owner ({@code RunServices}) keeps it for all its runs. */
    public StaleTemps() {
    }

    /**
     * Sweeps {@code tempBase} on {@code executor}, once per temp base for this sweeper, off the
     * run's path: the future completes when this call's sweep (or the earlier one) is done.
     */
    public CompletableFuture<List<Path>> sweepOnce(Path tempBase, long uid, Executor executor) {
        if (!swept.add(tempBase.toAbsolutePath().normalize())) {
            return CompletableFuture.completedFuture(List.of());
        }
        return CompletableFuture.supplyAsync(() -> sweep(tempBase, uid), executor);
    }

    /**
     * Removes every stale private temp dir directly under {@code tempBase} owned by {@code uid}
     * (magus's user); returns the ones it removed.
     */
    public static List<Path> sweep(Path tempBase, long uid) {
        List<Path> removed = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(tempBase, Trees.PRIVATE_TEMP_PREFIX + "*")) {
            for (Path entry : entries) {
                if (stale(entry, uid)) {
                    Trees.deleteQuietly(entry);
                    removed.add(entry);
                }
            }
        } catch (IOException | RuntimeException e) {
            // An unreadable temp base holds nothing we could remove; the run itself reports it if it matters.
        }
        return List.copyOf(removed);
    }

    /** Whether {@code entry} is a private temp dir of ours whose magus is certainly gone. */
    static boolean stale(Path entry, long uid) {
        Optional<ProcessIdentity> owner = owner(entry.getFileName().toString());
        if (owner.isEmpty() || owner.get().liveness() != ProcessIdentity.Liveness.GONE) {
            return false;
        }
        if (!Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        return uid(entry).map(u -> u == uid).orElse(false);
    }

    /** The magus that made the private temp dir called {@code name}, when the name says. */
    public static Optional<ProcessIdentity> owner(String name) {
        if (!name.startsWith(Trees.PRIVATE_TEMP_PREFIX)) {
            return Optional.empty();
        }
        String rest = name.substring(Trees.PRIVATE_TEMP_PREFIX.length());
        // NAMESPACE-PID-START-RANDOM: the random part is what makes the name a new one.
        if (rest.split("-", -1).length != 4) {
            return Optional.empty();
        }
        return ProcessIdentity.parse(rest);
    }

    private static Optional<Long> uid(Path p) {
        try {
            return Optional.of(((Number) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue());
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            return Optional.empty();
        }
    }
}
