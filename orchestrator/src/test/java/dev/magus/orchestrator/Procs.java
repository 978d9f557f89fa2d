package dev.magus.orchestrator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * Processes as tests see them through /proc, and bounded waits for the kernel to act: the one
 * copy the pipeline, watchdog and bin/magus tests share.
 */
public final class Procs {
    private Procs() {
    }

    /** Polls {@code cond} until {@code limit}: the limit is what is asserted, not a guess at the kernel's speed. */
    public static boolean within(Duration limit, BooleanSupplier cond) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** Waits, bounded, until {@code cond} holds; a deadline for the kernel to act, not a timing assertion. */
    public static boolean eventually(BooleanSupplier cond) {
        return within(Duration.ofSeconds(20), cond);
    }

    /** Fields 3 onwards of /proc/PID/stat (state first, then ppid, pgrp, ...). */
    public static String[] stat(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    }

    /** Whether {@code pid} exists and is not a zombie. */
    public static boolean alive(long pid) {
        try {
            String state = stat(pid)[0];
            return !state.equals("Z") && !state.equals("X");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Live (not zombie) members of process group {@code pgid}, from /proc. */
    public static List<Long> liveInGroup(long pgid) {
        List<Long> out = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    String[] f = stat(Long.parseLong(name));
                    if (Long.parseLong(f[2]) == pgid && !f[0].equals("Z") && !f[0].equals("X")) {
                        out.add(Long.parseLong(name));
                    }
                } catch (IOException | RuntimeException e) {
                    // the process ended while we looked
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }
}
