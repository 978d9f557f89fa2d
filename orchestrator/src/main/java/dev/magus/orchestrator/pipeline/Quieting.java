package dev.magus.orchestrator.pipeline;

import dev.magus.events.Code;
import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.workspace.Hashes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Which of a run's informational diagnostics have nothing new to say to a person, so that a
 * clean run prints only the child's output ({@link DetailKey#QUIET}; they stay events, in
 * {@code --events} and {@code --log}, and {@code -v} shows them):
 * <ul>
 *   <li>MGS2003 when this workspace's previous run dropped the very same variables: it is
 *       shown on a workspace's first run and again whenever the dropped set changes. What was
 *       seen is kept in the state dir ({@code seen/<hash of the workspace>}), which no run
 *       can write; a state that cannot be read or written shows it.</li>
 *   <li>MGS2006 when the command the run starts is not under that manager's shim directory:
 *       a pyenv shim on PATH does not matter to a Go build.</li>
 * </ul>
 */
final class Quieting {
    private Quieting() {
    }

    /**
     * @param seenDir    where what each workspace's runs dropped is kept ({@code <state dir>/seen})
     * @param workspace  the workspace root
     * @param executable the resolved command the run starts
     */
    static List<Diagnostic> apply(List<Diagnostic> diagnostics, Path seenDir, Path workspace, Path executable) {
        List<Diagnostic> out = new ArrayList<>(diagnostics.size());
        for (Diagnostic d : diagnostics) {
            boolean quiet = switch (d.code()) {
                case MGS2003 -> seenBefore(seenDir, workspace, d.names(DetailKey.DROPPED_NAMES));
                case MGS2006 -> Optional.ofNullable(d.details().get(DetailKey.SHIM_DIR.key()))
                        .map(dir -> !executable.startsWith(Path.of(dir))).orElse(false);
                default -> false;
            };
            out.add(quiet ? d.withDetail(DetailKey.QUIET, "true") : d);
        }
        return out;
    }

    /** Whether the workspace's last run dropped exactly {@code names}; notes them as seen otherwise. */
    static boolean seenBefore(Path seenDir, Path workspace, List<String> names) {
        try {
            Path file = seenDir.resolve(Hashes.of(workspace.toString()) + ".env");
            String now = Hashes.of(String.join("\n", new TreeSet<>(names)));
            if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                    && Files.readString(file, StandardCharsets.US_ASCII).strip().equals(now)) {
                return true;
            }
            Files.createDirectories(seenDir);
            Path tmp = Files.createTempFile(seenDir, ".seen", ".tmp");
            Files.writeString(tmp, now + "\n", StandardCharsets.US_ASCII);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return false;
        } catch (IOException | RuntimeException cannotTell) {
            return false;
        }
    }
}
