package dev.magus.server.client;

import dev.magus.events.Echo;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * The question {@code magus run --ask} puts on the controlling terminal, and how its answer is
 * read: the same words whether the run is local (the command line's approver) or forwarded (the
 * clients answering the server's ask frames; {@code magus-client.c} writes the same text).
 * Plain JDK: the Java forwarding client loads nothing more to ask.
 */
public final class TerminalPrompt implements AutoCloseable {
    /** The controlling terminal of this process. */
    public static final Path TTY = Path.of("/dev/tty");
    private static final long POLL_MILLIS = 20;

    private final InputStream in;
    private final PrintStream out;

    public TerminalPrompt(InputStream in, PrintStream out) {
        this.in = in;
        this.out = out;
    }

    /** The prompt on {@code tty}; empty when it cannot be opened for reading and writing (no controlling terminal). */
    public static Optional<TerminalPrompt> open(Path tty) {
        FileInputStream in = null;
        try {
            in = new FileInputStream(tty.toFile());
            return Optional.of(new TerminalPrompt(in, new PrintStream(new FileOutputStream(tty.toFile()), true,
                    StandardCharsets.UTF_8)));
        } catch (IOException e) {
            if (in != null) {
                try {
                    in.close();
                } catch (IOException ignored) {
                    // nothing was read
                }
            }
            return Optional.empty();
        }
    }

    /**
     * The question as the terminal shows it. The names in it are shown as {@code Echo.visible}
     * shows them (a control character, a bidirectional override, as an escape): a file named to
     * rewrite the terminal's line cannot make the question say another path.
     *
     * @param process  the caller's program, empty when unreadable (then only its pid is named)
     * @param asked    the path as the caller named it
     * @param resolved the path with every link resolved, named too when it differs
     * @param access   what is asked: read, write, create, list
     */
    public static String question(int pid, String process, String asked, String resolved, String access) {
        String who = process.isEmpty() ? "pid " + pid : Echo.visible(process) + " (pid " + pid + ")";
        String where = resolved.equals(asked) ? Echo.visible(asked)
                : Echo.visible(asked) + " (that is " + Echo.visible(resolved) + ")";
        return "magus: " + who + " asks to " + Echo.visible(access) + " " + where + ", which the policy refuses.\n"
                + "magus: [o] allow once  [r] allow for this run  [d] deny? ";
    }

    /** What an answer means, as a decision frame says it: {@code o}nce, {@code r}un; anything else is {@code deny}. */
    public static String choice(String answer) {
        String a = answer.strip().toLowerCase(Locale.ROOT);
        if (a.equals("o") || a.equals("once")) {
            return "once";
        }
        if (a.equals("r") || a.equals("run")) {
            return "run";
        }
        return "deny";
    }

    /**
     * Puts {@code question} and reads the answer's line: its {@link #choice}. No line within
     * {@code withinMillis} (none: only an interrupt stops the wait), an interrupt or a closed
     * terminal is said to be denied, and denies; the next question gets the next line. Given up
     * (no answer: denied) as soon as {@code cancelled} says so.
     */
    public String ask(String question, long withinMillis, java.util.function.BooleanSupplier cancelled) throws IOException {
        out.print(question);
        out.flush();
        long deadline = withinMillis > 0 ? System.nanoTime() + withinMillis * 1_000_000 : Long.MAX_VALUE;
        Optional<String> line = line(withinMillis > 0, deadline, cancelled);
        if (line.isEmpty()) {
            out.println("(no answer: denied)");
            return "deny";
        }
        String c = choice(line.get());
        if (c.equals("deny")) {
            out.println("magus: denied");
        }
        return c;
    }

    /** The next line typed, or empty when the time ran out, the wait was cancelled or interrupted, or the terminal closed. */
    private Optional<String> line(boolean timed, long deadline, java.util.function.BooleanSupplier cancelled)
            throws IOException {
        ByteArrayOutputStream typed = new ByteArrayOutputStream();
        while (true) {
            while (in.available() > 0) {
                int b = in.read();
                if (b < 0) {
                    return Optional.empty();
                }
                if (b == '\n') {
                    return Optional.of(typed.toString(StandardCharsets.UTF_8));
                }
                typed.write(b);
            }
            if (timed && System.nanoTime() - deadline >= 0 || cancelled.getAsBoolean()) {
                return Optional.empty();
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
    }

    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException e) {
            // nothing more is read
        }
        out.close();
    }
}
