package dev.magus.landlock.denials.infer;

import dev.magus.events.Operation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a tool touches at every start without a word when it is refused: known, so that a run
 * counts those denials without the kernel's audit records, and shows them at {@code -v} only.
 *
 * <p>A HotSpot JVM ({@code java}, started by magus itself, so its pid is the child's) sets its
 * own core-dump filter by writing {@code /proc/<pid>/coredump_filter}, and, unless
 * {@code -XX:-UsePerfData}, lists {@code /tmp/hsperfdata_<user>} for its performance-data file
 * (creating the directory when it is not there). Both fail quietly under a policy without them,
 * and the JVM runs the same.
 */
final class ToolProbes {

    /** One silent access: what, where, and why the tool does it. */
    record Probe(Operation op, Path path, String why) {
        Probe {
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(why, "why");
        }
    }

    private ToolProbes() {
    }

    /** The probes of the command magus started as process {@code pid}; none when it is no known tool. */
    static List<Probe> of(CommandLine command, long pid) {
        if (pid <= 0 || !command.tool().equals("java")) {
            return List.of();
        }
        List<Probe> out = new ArrayList<>(2);
        out.add(new Probe(Operation.WRITE, Path.of("/proc", Long.toString(pid), "coredump_filter"),
                "the JVM sets its own core-dump filter at start"));
        if (!command.argv().contains("-XX:-UsePerfData")) {
            // HotSpot's directory is /tmp on Linux whatever java.io.tmpdir says; the user is the run's, magus's own.
            Path perf = Path.of("/tmp", "hsperfdata_" + System.getProperty("user.name", ""));
            out.add(Files.isDirectory(perf)
                    ? new Probe(Operation.READ, perf, "the JVM lists its performance-data directory at start")
                    : new Probe(Operation.WRITE, perf, "the JVM creates its performance-data directory at start"));
        }
        return List.copyOf(out);
    }
}
