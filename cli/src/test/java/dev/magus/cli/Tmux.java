package dev.magus.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/** A private tmux server (its own socket) for the tests that need a real terminal to read back. */
final class Tmux {
    private final String socket;

    Tmux(String name) {
        this.socket = "magus-" + name + "-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    }

    /** Skips, saying why on stderr, where tmux does not run. */
    static void assume(String why) {
        boolean tmux;
        try {
            Process p = new ProcessBuilder("tmux", "-V").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            tmux = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            tmux = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            tmux = false;
        }
        if (!tmux) {
            System.err.println("SKIPPED: " + why);
        }
        Assumptions.assumeTrue(tmux, why);
    }

    /** {@code tmux args...} on this server; what it printed. */
    String run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tmux", "-L", socket, "-f", "/dev/null"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }

    /** A shell line that runs {@code magus args} (already quoted) in {@code ws} with exactly {@code env}. */
    static String magusLine(Path ws, Map<String, String> env, Path magus, String args) {
        StringBuilder line = new StringBuilder("cd '" + ws + "' && exec env -i");
        env.forEach((k, v) -> line.append(' ').append(k).append("='").append(v).append('\''));
        return line.append(" TERM=screen '").append(magus).append("' ").append(args).toString();
    }
}
