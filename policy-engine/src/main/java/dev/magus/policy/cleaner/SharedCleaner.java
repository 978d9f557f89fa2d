package dev.magus.policy.cleaner;

import java.lang.ref.Cleaner;

/**
 * The one {@link Cleaner} of the process: one daemon thread, {@value #THREAD}, runs the
 * actions of whatever the collector finds unreachable, whoever dropped it (a descriptor's
 * stream, a watchdog's loop, an audit pass's watch). An action must be short and must not
 * block, since every other waits behind it.
 */
public final class SharedCleaner {
    /** The cleaner thread's name. */
    public static final String THREAD = "magus-cleaner";
    /** Daemon, so it never keeps the JVM alive; named, so it shows in a thread dump. */
    public static final Cleaner CLEANER = Cleaner.create(r -> {
        Thread t = new Thread(r, THREAD);
        t.setDaemon(true);
        return t;
    });

    private SharedCleaner() {
    }
}
