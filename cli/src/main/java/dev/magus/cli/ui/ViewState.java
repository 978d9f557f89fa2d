package dev.magus.cli.ui;

import dev.magus.events.Code;
import dev.magus.events.Layer;
import dev.magus.events.Mode;
import dev.magus.events.Operation;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the live view shows at one moment; a value, replaced by {@link ViewReducer} on each event or tick.
 *
 * @param command     the command as the person typed it (argv)
 * @param mode        the effective sandbox mode, empty until the child started
 * @param pid         the child's pid, 0 until it started
 * @param since       when the run started (the view's start until the child did)
 * @param elapsed     time since {@code since}; frozen at the run's duration once it ended
 * @param counts      diagnostics seen per code, in code order
 * @param denials     the latest denials, newest first, at most the reducer's {@code keep}
 * @param deniedTotal every denial seen, repeats of one denial included, and those no longer in {@code denials}
 * @param distinct    the distinct denials among them (operation and path), what {@code denials} lists
 * @param lines       output lines of the child so far (stdout and stderr)
 * @param ending      how the run ended, empty while it runs
 */
public record ViewState(
        List<String> command,
        Optional<Mode> mode,
        long pid,
        Instant since,
        Duration elapsed,
        Map<Code, Long> counts,
        List<Denial> denials,
        long deniedTotal,
        long distinct,
        long lines,
        Optional<Ending> ending) {

    public ViewState {
        command = List.copyOf(command);
        counts = counts.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(counts));
        denials = List.copyOf(denials);
    }

    public boolean running() {
        return ending.isEmpty();
    }

    public long count(Code code) {
        return counts.getOrDefault(code, 0L);
    }

    public long diagnosticsTotal() {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * One refused access.
     *
     * @param code      MGS2001, MGS2002, MGS2007 or MGS2009
     * @param path      the path refused, as resolved
     * @param right     read, write or exec
     * @param layer     binding (magus's own check) or kernel (Landlock)
     * @param allowYaml the {@code magus.yaml} snippet that would allow it; empty when no
     *                  declaration can (a control file, a symlink loop)
     * @param allowHint {@code allowYaml} on one line, as the status area shows it; made once
     *                  with the denial rather than on every redraw
     */
    public record Denial(Code code, String path, Operation right, Layer layer, Optional<String> allowYaml,
            Optional<String> allowHint) {
    }

    /** How the run ended: magus run's exit status, the signal (0 when none) and the duration. */
    public record Ending(int status, int signal, Duration duration) {
    }
}
