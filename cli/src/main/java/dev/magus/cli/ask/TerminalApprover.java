package dev.magus.cli.ask;

import dev.magus.landlock.supervise.Ask;
import dev.magus.landlock.supervise.Decision;
import dev.magus.landlock.supervise.Approver;
import dev.magus.server.client.TerminalPrompt;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Asks the person at the controlling terminal ({@code /dev/tty}, not the child's standard
 * streams) about each refused access, one at a time: the program, the path, the access, and
 * allow once ({@code o}), allow for this run ({@code r}) or deny ({@code d}, and anything
 * else). The line is read without blocking past a cancel: an ask whose time ran out is said to
 * be denied, and the next one gets the next line. The words are {@link TerminalPrompt}'s, which
 * the forwarding clients put too when a forwarded run asks.
 */
public final class TerminalApprover implements Approver, AutoCloseable {
    /** The controlling terminal of this process. */
    public static final Path TTY = TerminalPrompt.TTY;

    private final TerminalPrompt prompt;
    private final Scheduler one = Schedulers.newSingle("magus-ask", true);

    TerminalApprover(TerminalPrompt prompt) {
        this.prompt = prompt;
    }

    /** The approver on {@code tty}; empty when it cannot be opened for reading and writing (no controlling terminal). */
    public static Optional<TerminalApprover> open(Path tty) {
        return TerminalPrompt.open(tty).map(TerminalApprover::new);
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
        return Mono.fromCallable(() -> decision(prompt.ask(question(ask), 0, () -> false))).subscribeOn(one);
    }

    /** The question as the terminal shows it. */
    static String question(Ask ask) {
        return TerminalPrompt.question(ask.pid(), ask.process(), ask.asked(), ask.resolved(), ask.access().label());
    }

    /** What an answer means: {@code o}nce, {@code r}un; anything else denies. */
    static Decision decision(String answer) {
        return switch (TerminalPrompt.choice(answer)) {
            case "once" -> Decision.ALLOW_ONCE;
            case "run" -> Decision.ALLOW_FOR_RUN;
            default -> Decision.DENY;
        };
    }

    @Override
    public void close() {
        one.dispose();
        prompt.close();
    }
}
