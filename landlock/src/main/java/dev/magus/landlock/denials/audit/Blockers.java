package dev.magus.landlock.denials.audit;

import dev.magus.events.Operation;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** What a Landlock blocker name means for the sandbox's three operations. */
public final class Blockers {

    private Blockers() {
    }

    /** READ, WRITE or EXEC; empty for rights the sandbox has no code for (network, scopes). */
    public static Optional<Operation> operation(String blocker) {
        return switch (blocker) {
            case "fs.execute" -> Optional.of(Operation.EXEC);
            case "fs.read_file", "fs.read_dir" -> Optional.of(Operation.READ);
            case "fs.write_file", "fs.remove_dir", "fs.remove_file", "fs.make_char", "fs.make_dir", "fs.make_reg",
                    "fs.make_sock", "fs.make_fifo", "fs.make_block", "fs.make_sym", "fs.refer", "fs.truncate",
                    "fs.ioctl_dev" -> Optional.of(Operation.WRITE);
            default -> Optional.empty();
        };
    }

    /**
     * CONNECT or BIND for a record of a refused TCP connect or bind ({@code net.connect_tcp},
     * {@code net.bind_tcp}); empty for every other record. A socket call is one right, so one
     * record never holds both.
     */
    public static Optional<Operation> network(List<String> blockers) {
        if (blockers.contains("net.connect_tcp")) {
            return Optional.of(Operation.CONNECT);
        }
        return blockers.contains("net.bind_tcp") ? Optional.of(Operation.BIND) : Optional.empty();
    }

    /** The distinct operations of a record's blockers, in order. */
    public static List<Operation> operations(List<String> blockers) {
        Set<Operation> ops = new LinkedHashSet<>();
        blockers.forEach(b -> operation(b).ifPresent(ops::add));
        return List.copyOf(ops);
    }

    /**
     * The one operation a record is about; one denial is one diagnostic. A change to a
     * directory's entries (create, remove, rename, link: {@code fs.make_*}, {@code fs.remove_*},
     * {@code fs.refer}) is a write whatever else the record lists: a refused rename or link
     * lists every right the moved file would need at its destination, {@code fs.execute}
     * included, and is no exec. Otherwise an exec refused also lists {@code fs.read_file} (the
     * kernel opens the binary to load it), and a read-write open refused lists both: EXEC wins
     * over WRITE and WRITE over READ (a declaration of {@code rw} or {@code rx} covers the read).
     */
    public static Optional<Operation> primary(List<String> blockers) {
        if (blockers.stream().anyMatch(Blockers::changesEntries)) {
            return Optional.of(Operation.WRITE);
        }
        List<Operation> ops = operations(blockers);
        for (Operation op : List.of(Operation.EXEC, Operation.WRITE, Operation.READ)) {
            if (ops.contains(op)) {
                return Optional.of(op);
            }
        }
        return Optional.empty();
    }

    private static boolean changesEntries(String blocker) {
        return blocker.startsWith("fs.make_") || blocker.startsWith("fs.remove_") || blocker.equals("fs.refer");
    }

    /**
     * True when every blocker is a right on a directory's entries (create, remove, rename):
     * the record then names the parent directory, not the file a tool reports.
     */
    public static boolean onParentDirectory(List<String> blockers) {
        return !blockers.isEmpty() && blockers.stream().allMatch(Blockers::changesEntries);
    }
}
