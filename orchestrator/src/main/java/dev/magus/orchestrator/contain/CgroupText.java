package dev.magus.orchestrator.contain;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The kernel's cgroup files read as text, without I/O: where the cgroup2 hierarchy is mounted
 * ({@code /proc/self/mountinfo}), which cgroup of it a process is in ({@code /proc/PID/cgroup}),
 * whether a cgroup is populated or frozen ({@code cgroup.events}), and the ids a cgroup lists
 * ({@code cgroup.threads}, {@code cgroup.procs}).
 */
public final class CgroupText {
    private CgroupText() {
    }

    /** A cgroup's {@code cgroup.events}: whether any process is in it or below, and whether it is frozen. */
    public record Events(boolean populated, boolean frozen) {
    }

    /**
     * The mount point of the first cgroup2 file system in {@code mountinfo}: {@code /sys/fs/cgroup}
     * on a unified host, {@code /sys/fs/cgroup/unified} on a hybrid one; empty on a host with
     * cgroup v1 only.
     */
    public static Optional<Path> cgroup2Mount(String mountinfo) {
        for (String line : mountinfo.split("\n")) {
            // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
            int dash = line.indexOf(" - ");
            if (dash < 0) {
                continue;
            }
            String[] head = line.substring(0, dash).split(" ");
            String[] tail = line.substring(dash + 3).split(" ");
            if (head.length >= 5 && tail.length >= 1 && tail[0].equals("cgroup2") && head[3].equals("/")) {
                return Optional.of(Path.of(unescape(head[4])));
            }
        }
        return Optional.empty();
    }

    /**
     * The cgroup2 path (from the hierarchy's root, starting with {@code /}) in a
     * {@code /proc/PID/cgroup}: its {@code 0::} line; empty when there is none (cgroup v1 only)
     * or the process is outside this namespace's view.
     */
    public static Optional<String> unifiedPath(String procCgroup) {
        for (String line : procCgroup.split("\n")) {
            if (line.startsWith("0::")) {
                String path = line.substring(3).strip();
                // "(deleted)" or a path out of this cgroup namespace's reach ("/../x") is no place of ours.
                if (!path.startsWith("/") || path.contains("/..") || path.endsWith(" (deleted)")) {
                    return Optional.empty();
                }
                return Optional.of(path);
            }
        }
        return Optional.empty();
    }

    /**
     * A {@code cgroup.events}.
     *
     * @throws IllegalArgumentException when it does not say whether the cgroup is populated
     */
    public static Events events(String text) {
        Boolean populated = null;
        boolean frozen = false;
        for (String line : text.split("\n")) {
            String[] kv = line.strip().split(" ");
            if (kv.length != 2) {
                continue;
            }
            if (kv[0].equals("populated")) {
                populated = kv[1].equals("1");
            } else if (kv[0].equals("frozen")) {
                frozen = kv[1].equals("1");
            }
        }
        if (populated == null) {
            throw new IllegalArgumentException("cgroup.events without a populated line: " + text.strip());
        }
        return new Events(populated, frozen);
    }

    /** The ids, one a line, of a {@code cgroup.threads} or {@code cgroup.procs}; a line that is no id is skipped. */
    public static List<Long> ids(String text) {
        List<Long> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            String s = line.strip();
            if (!s.isEmpty() && s.chars().allMatch(c -> c >= '0' && c <= '9') && s.length() < 19) {
                out.add(Long.parseLong(s));
            }
        }
        return out;
    }

    /** mountinfo's octal escapes ({@code \040} for a space, and tab, newline, backslash). */
    static String unescape(String field) {
        StringBuilder b = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && isOctal(field, i + 1)) {
                b.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static boolean isOctal(String s, int from) {
        if (from + 3 > s.length()) {
            return false;
        }
        for (int i = from; i < from + 3; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '7') {
                return false;
            }
        }
        return true;
    }
}
