package dev.magus.cli.ask;

import dev.magus.landlock.supervise.Ask;
import dev.magus.landlock.supervise.Decision;
import dev.magus.landlock.supervise.Approver;
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
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Asks the person at the controlling terminal ({@code /dev/tty}, not the child's standard
 * streams) about each refused access, one at a time: the program, the path, the access, and
 * allow once ({@code o}), allow for this run ({@code r}) or deny ({@code d}, and anything
 * else). The line is read without blocking past a cancel: an ask whose time ran out is said to
 * be denied, and the next one gets the next line.
 */
public final class TerminalApprover implements Approver, AutoCloseable {
    /** The controlling terminal of this process. */
    public static final Path TTY = Path.of("/dev/tty");
    private static final long POLL_MILLIS = 20;

    private final InputStream in;
    private final PrintStream out;
    private final Scheduler one = Schedulers.newSingle("magus-ask", true);

    TerminalApprover(InputStream in, PrintStream out) {
        this.in = in;
        this.out = out;
    }

    /** The approver on {@code tty}; empty when it cannot be opened for reading and writing (no controlling terminal). */
    public static Optional<TerminalApprover> open(Path tty) {
        FileInputStream in = null;
        try {
            in = new FileInputStream(tty.toFile());
            return Optional.of(new TerminalApprover(in, new PrintStream(new FileOutputStream(tty.toFile()), true,
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

    /** Whether this process's descriptor {@code fd} is a terminal (where {@code /proc} says so). */
    public static boolean isTerminal(int fd) {
        try {
            String target = java.nio.file.Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    @Override
    public Mono<Decision> ask(Ask ask) {
        return Mono.fromCallable(() -> prompt(ask)).subscribeOn(one);
    }

    /** The question as the terminal shows it. */
    static String question(Ask ask) {
        String who = ask.process().isEmpty() ? "pid " + ask.pid() : ask.process() + " (pid " + ask.pid() + ")";
        String where = ask.resolved().equals(ask.asked()) ? ask.asked() : ask.asked() + " (that is " + ask.resolved() + ")";
        return "magus: " + who + " asks to " + ask.access().label() + " " + where + ", which the policy refuses.\n"
                + "magus: [o] allow once  [r] allow for this run  [d] deny? ";
    }

    /** What an answer means: {@code o}nce, {@code r}un; anything else denies. */
    static Decision decision(String answer) {
        String a = answer.strip().toLowerCase(Locale.ROOT);
        if (a.equals("o") || a.equals("once")) {
            return Decision.ALLOW_ONCE;
        }
        if (a.equals("r") || a.equals("run")) {
            return Decision.ALLOW_FOR_RUN;
        }
        return Decision.DENY;
    }

    private Decision prompt(Ask ask) throws IOException {
        out.print(question(ask));
        out.flush();
        Optional<String> line = line();
        if (line.isEmpty()) {
            out.println("(no answer: denied)");
            return Decision.DENY;
        }
        Decision d = decision(line.get());
        if (d instanceof Decision.Deny) {
            out.println("magus: denied");
        }
        return d;
    }

    /** The next line typed, or empty when the ask was cancelled (its time ran out) or the terminal closed. */
    private Optional<String> line() throws IOException {
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
        one.dispose();
        try {
            in.close();
        } catch (IOException e) {
            // nothing more is read
        }
        out.close();
    }
}
