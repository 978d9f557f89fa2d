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

    /** The distinct operations of a record's blockers, in order. */
    public static List<Operation> operations(List<String> blockers) {
        Set<Operation> ops = new LinkedHashSet<>();
        blockers.forEach(b -> operation(b).ifPresent(ops::add));
        return List.copyOf(ops);
    }

    /**
     * The one operation a record is about. An exec refused also lists {@code fs.read_file}
     * (the kernel opens the binary to load it), and a read-write open refused both lists both;
     * one denial is one diagnostic, so EXEC wins over WRITE and WRITE over READ (a declaration
     * of {@code rw} or {@code rx} covers the read as well).
     */
    public static Optional<Operation> primary(List<String> blockers) {
        List<Operation> ops = operations(blockers);
        for (Operation op : List.of(Operation.EXEC, Operation.WRITE, Operation.READ)) {
            if (ops.contains(op)) {
                return Optional.of(op);
            }
        }
        return Optional.empty();
    }

    /**
     * True when every blocker is a right on a directory's entries (create, remove, rename):
     * the record then names the parent directory, not the file a tool reports.
     */
    public static boolean onParentDirectory(List<String> blockers) {
        return !blockers.isEmpty() && blockers.stream()
                .allMatch(b -> b.startsWith("fs.make_") || b.startsWith("fs.remove_") || b.equals("fs.refer"));
    }
}
