package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code magus run --ui} on a real terminal: a detached tmux session of a fixed size (120
 * columns), its screen read back with {@code capture-pane}. The view counts every denial, not
 * only the distinct ones, shows the distinct ones apart, and never lets the terminal cut one of
 * magus's lines inside a word.
 */
class LiveViewTmuxIT {
    static Path magus;
    static final int COLUMNS = 120;

    @TempDir
    Path root;
    Path home;
    Path ws;
    Map<String, String> env;
    Tmux tmux;

    @BeforeAll
    static void findTools() {
        magus = BinMagus.find("tmux tests of magus run --ui");
        Tmux.assume("tmux is not installed here: the --ui tests need a real terminal to read back");
    }

    @BeforeEach
    void setUp() throws IOException {
        home = Files.createDirectories(root.resolve("home")).toRealPath();
        ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        Path tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Files.createDirectories(home.resolve(".aws"));
        Files.writeString(home.resolve(".aws/credentials"), "AKIAFAKEFAKE\n");
        Files.createDirectories(home.resolve(".cache/tool"));
        env = BinMagus.env(home, tmp);
        tmux = new Tmux("ui");
    }

    @AfterEach
    void killServer() throws Exception {
        tmux("kill-server");
    }

    private String tmux(String... args) throws IOException, InterruptedException {
        return tmux.run(args);
    }

    /** Runs {@code magus run --ui -- sh -c script} in a 120x40 pane and returns the screen once the run ended. */
    private List<String> screenOf(String script) throws Exception {
        String line = Tmux.magusLine(ws, env, magus, "run --ui -- sh -c '" + script + "'");
        tmux("new-session", "-d", "-x", Integer.toString(COLUMNS), "-y", "40", "-s", "ui", line);
        tmux("set-option", "-t", "ui", "remain-on-exit", "on");
        for (int i = 0; i < 600; i++) {
            String dead = tmux("display-message", "-p", "-t", "ui", "#{pane_dead}").strip();
            if (dead.equals("1")) {
                break;
            }
            Thread.sleep(100);
        }
        assertThat(tmux("display-message", "-p", "-t", "ui", "#{pane_dead}").strip()).as("the run ended").isEqualTo("1");
        return tmux("capture-pane", "-p", "-J", "-t", "ui").lines().toList();
    }

    @Test
    void every_denial_is_counted_and_the_distinct_ones_apart() throws Exception {
        String creds = home.resolve(".aws/credentials").toString();
        String cache = home.resolve(".cache/tool").toString();
        // 12 denials of 2 distinct accesses.
        List<String> screen = screenOf("for i in 1 2 3 4 5 6; do cat " + creds + "; ls " + cache + "; done; exit 3");
        String text = String.join("\n", screen);
        assertThat(text).as(text).contains("status 3");
        assertThat(text).as(text).contains("12 accesses denied, 2 distinct");
    }

    @Test
    void magus_lines_are_never_cut_inside_a_word_at_120_columns() throws Exception {
        // A long path makes every diagnostic line longer than the terminal is wide.
        Path deep = Files.createDirectories(home.resolve(".cache/a-rather-long-directory-name-for-a-tool/and-below-it"
                + "-another-long-one/and-a-third-level"));
        List<String> screen = screenOf("ls " + deep + "; exit 0");
        // Without -J each row is as the terminal drew it: read the raw rows.
        List<String> rows = tmux("capture-pane", "-p", "-t", "ui").lines().toList();
        String text = String.join("\n", rows);
        assertThat(String.join("\n", screen)).as(text).contains("MGS2001");
        for (int i = 0; i + 1 < rows.size(); i++) {
            String row = rows.get(i);
            String next = rows.get(i + 1);
            boolean cutInWord = row.length() >= COLUMNS && !row.endsWith(" ") && !next.isEmpty()
                    && !Character.isWhitespace(next.charAt(0));
            if (row.startsWith("magus") || row.startsWith("    ")) {
                assertThat(cutInWord).as("row %d cut inside a word:%n%s", i, text).isFalse();
            }
        }
    }
}
