package dev.magus.orchestrator.orphans;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A process as the kernel knows it for as long as it lives: its pid is not enough, since the
 * kernel hands a freed pid to the next process, but a pid together with the moment it started
 * (field 22 of {@code /proc/PID/stat}, in clock ticks since boot) names one process only. The
 * pid namespace is part of it because a temp dir may be shared with another namespace (a
 * container on the same {@code /tmp}), where the same number is a different process that we
 * cannot look at.
 *
 * @param pidNamespace the inode of {@code /proc/self/ns/pid} of the process that recorded it
 * @param pid          the pid in that namespace
 * @param startTicks   when it started, in clock ticks since boot
 */
public record ProcessIdentity(long pidNamespace, long pid, long startTicks) {
    private static final Path PROC = Path.of("/proc");

    /** What looking a recorded process up found. */
    public enum Liveness {
        /** The same process is still running (or is a zombie not yet reaped: it may hold no files, but its parent may). */
        ALIVE,
        /** No process has that pid, or another one has it now. */
        GONE,
        /** It cannot be told from here: another pid namespace, or no {@code /proc}. */
        UNKNOWN
    }

    /** This process, or empty where {@code /proc} cannot say (not Linux, or not mounted). */
    public static Optional<ProcessIdentity> self() {
        return Holder.SELF;
    }

    /** The running process {@code pid} of our own namespace, or empty when there is none. */
    static Optional<ProcessIdentity> of(long pid) {
        Optional<Long> ns = namespace();
        Optional<Long> start = startTicks(pid);
        if (ns.isEmpty() || start.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new ProcessIdentity(ns.get(), pid, start.get()));
    }

    /**
     * Whether the process this names still runs. Only a positive answer protects anything: a
     * directory is removed on {@link Liveness#GONE} alone, which needs our own namespace and a
     * pid that is free or belongs to a process that started at another moment.
     */
    public Liveness liveness() {
        Optional<Long> ns = namespace();
        if (ns.isEmpty() || ns.get() != pidNamespace) {
            return Liveness.UNKNOWN;
        }
        if (!procIsOurs()) {
            return Liveness.UNKNOWN;
        }
        Optional<Long> now = startTicks(pid);
        if (now.isPresent()) {
            return now.get() == startTicks ? Liveness.ALIVE : Liveness.GONE;
        }
        // Only a pid with no entry in /proc is gone; a stat that could not be read or parsed
        // says nothing, and a live run's temp dir must never be removed on nothing.
        return Files.notExists(PROC.resolve(Long.toString(pid)), LinkOption.NOFOLLOW_LINKS) ? Liveness.GONE : Liveness.UNKNOWN;
    }

    /** The identity as it goes into a name: {@code NAMESPACE-PID-START}, digits and dashes only. */
    public String token() {
        return pidNamespace + "-" + pid + "-" + startTicks;
    }

    /**
     * The identity at the start of {@code text} ({@code NAMESPACE-PID-START}, then anything
     * after a further dash), or empty when {@code text} does not start with one.
     */
    public static Optional<ProcessIdentity> parse(String text) {
        String[] parts = text.split("-", 4);
        if (parts.length < 3) {
            return Optional.empty();
        }
        try {
            long ns = Long.parseLong(parts[0]);
            long pid = Long.parseLong(parts[1]);
            long start = Long.parseLong(parts[2]);
            if (ns <= 0 || pid <= 0 || start < 0 || !digits(parts[0]) || !digits(parts[1]) || !digits(parts[2])) {
                return Optional.empty();
            }
            return Optional.of(new ProcessIdentity(ns, pid, start));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * Whether {@code /proc} shows our own pid namespace: a container may see its host's (or no)
     * {@code /proc}, where our pid names somebody else.
     */
    static boolean procIsOurs() {
        try {
            return Files.readSymbolicLink(PROC.resolve("self")).toString().equals(Long.toString(ProcessHandle.current().pid()));
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    private static boolean digits(String s) {
        return !s.isEmpty() && s.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    /** The inode of our pid namespace, from the link {@code /proc/self/ns/pid} ({@code pid:[4026531836]}). */
    static Optional<Long> namespace() {
        try {
            String link = Files.readSymbolicLink(PROC.resolve("self/ns/pid")).toString();
            int open = link.indexOf('[');
            int close = link.indexOf(']', open + 1);
            if (!link.startsWith("pid:") || open < 0 || close < 0) {
                return Optional.empty();
            }
            return Optional.of(Long.parseLong(link.substring(open + 1, close)));
        } catch (IOException | UnsupportedOperationException | NumberFormatException | SecurityException e) {
            return Optional.empty();
        }
    }

    /**
     * Field 22 of {@code /proc/PID/stat}. The fields are counted after the last ')', since the
     * command name in parentheses (field 2) may itself hold spaces and parentheses.
     */
    static Optional<Long> startTicks(long pid) {
        try {
            String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"));
            int close = stat.lastIndexOf(')');
            if (close < 0) {
                return Optional.empty();
            }
            // After ") ": field 3 (state) is index 0, so field 22 is index 19.
            String[] fields = stat.substring(close + 2).split(" ");
            return fields.length > 19 ? Optional.of(Long.parseLong(fields[19])) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Read once: a process's own identity never changes. */
    private static final class Holder {
        static final Optional<ProcessIdentity> SELF = procIsOurs() ? of(ProcessHandle.current().pid()) : Optional.empty();
    }
}
