package dev.magus.orchestrator.orphans;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The children files the first pass of one check opened, read again by its second through
 * the same descriptors: a read at offset 0 ({@code pread}) makes the kernel build the list
 * anew, as an open does, without the open's walk of {@code /proc} and the close (about half
 * of the second pass's cost). The second pass still lists the task directory
 * afresh, opens any task not seen by the first, and compares both whole. A descriptor of a
 * thread that ended since reads empty, as its path would read empty or not at all; a task
 * id taken again meanwhile by a new magus thread would need a lap of the pid space between
 * two passes, and such a thread could only hold children it forked itself, never an orphan
 * (the kernel hands those to a living thread of the subreaper, one that existed already).
 */
final class HeldLists implements AutoCloseable {
    /**
     * How many descriptors all checks of this process may hold at once: one check holds one per
     * magus thread, so a burst of ending runs could otherwise exhaust the server's descriptors
     * and fail other runs' spawns and accepts. Past the budget the second pass opens a list again.
     */
    static final int BUDGET = 256;
    private static final AtomicInteger HELD = new AtomicInteger();
    private final Map<Long, FileChannel> open = new HashMap<>();

    /** Keeps {@code ch} under {@code id} when the budget allows; false when the caller must close it. */
    boolean keep(long id, FileChannel ch) {
        if (open.containsKey(id)) {
            return false;
        }
        if (HELD.incrementAndGet() > BUDGET) {
            HELD.decrementAndGet();
            return false;
        }
        open.put(id, ch);
        return true;
    }

    /** The list of task {@code id} this check holds open, or null. */
    FileChannel get(long id) {
        return open.get(id);
    }

    /** How many descriptors this check holds. */
    int kept() {
        return open.size();
    }

    /** How many descriptors the checks of this process hold now. */
    static int held() {
        return HELD.get();
    }

    @Override
    public void close() {
        for (FileChannel ch : open.values()) {
            HELD.decrementAndGet();
            closeQuietly(ch);
        }
        open.clear();
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            // a /proc descriptor: nothing was written
        }
    }
}
