package dev.magus.cli.ui;

import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.events.Severity;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;
import org.jline.utils.InfoCmp.Capability;
import org.jline.utils.Status;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * {@code magus run --ui}: the child's output and magus's diagnostics scroll in the terminal
 * while JLine's {@link Status} keeps the run's state in the bottom rows, redrawn on each
 * diagnostic and every {@link #TICK}; once the run ended the status area goes and a summary
 * stays.
 *
 * <p>The view never holds the run up. Everything that writes to the terminal (which can block)
 * runs on the view's own thread, one input at a time, so the reducer's state needs no lock;
 * ticks it is too slow for are dropped. JLine's signal handling stays off, since {@code magus
 * run} forwards SIGINT, SIGTERM and SIGHUP itself: a resize is noticed at the next tick.
 */
public final class LiveView implements AutoCloseable {
    /** How often the elapsed time moves. */
    public static final Duration TICK = Duration.ofMillis(200);
    /** How many of the latest denials the status area shows. */
    public static final int LATEST = 3;
    private static final int HEIGHT = 2 + LATEST;
    private static final Duration DRAIN = Duration.ofSeconds(10);

    private final Terminal terminal;
    private final BottomStatus status;
    private final Function<Diagnostic, String> humanLine;
    private final Predicate<Diagnostic> shown;
    private final Clock clock;
    private final ViewReducer reducer = new ViewReducer(LATEST);
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "magus-ui");
        t.setDaemon(true);
        return t;
    });
    private final Scheduler ui = Schedulers.fromExecutorService(thread, "magus-ui");
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private ViewState state;
    private Size size;
    private boolean ended;
    private boolean reserved;
    private Disposable subscription;

    private LiveView(Terminal terminal, BottomStatus status, List<String> command, Function<Diagnostic, String> humanLine,
            Predicate<Diagnostic> shown, Clock clock) {
        this.terminal = terminal;
        this.status = status;
        this.humanLine = humanLine;
        this.shown = shown;
        this.clock = clock;
        this.state = reducer.initial(command, clock.instant());
        this.size = terminal.getSize();
    }

    /**
     * The live view on this process's terminal; empty when standard input or output is not a
     * terminal, or the terminal cannot keep a status area (JLine's dumb terminal, no scroll
     * region): the caller then prints plain lines.
     *
     * @param command   the command as typed, shown until the child started
     * @param humanLine how a diagnostic reads as one line (the same as without the view)
     * @param shown     which diagnostics get that line (debug ones only when asked for)
     */
    public static Optional<LiveView> open(List<String> command, Function<Diagnostic, String> humanLine,
            Predicate<Diagnostic> shown) {
        if (System.console() == null) {
            return Optional.empty();
        }
        Terminal terminal;
        try {
            terminal = TerminalBuilder.builder().system(true).nativeSignals(false).dumb(true).build();
        } catch (IOException | RuntimeException e) {
            // No terminal JLine can drive: the run goes on with the plain lines, which show
            // everything the view would (the view is a convenience, never the record).
            return Optional.empty();
        }
        if (Terminal.TYPE_DUMB.equals(terminal.getType()) || Terminal.TYPE_DUMB_COLOR.equals(terminal.getType())
                || terminal.getSize().getRows() <= HEIGHT + 2
                || terminal.getStringCapability(Capability.cursor_up) == null) {
            closeQuietly(terminal);
            return Optional.empty();
        }
        BottomStatus status = new BottomStatus(terminal);
        if (!status.supported()) {
            closeQuietly(terminal);
            return Optional.empty();
        }
        return Optional.of(new LiveView(terminal, status, command, humanLine, shown, Clock.systemUTC()));
    }

    /** Starts showing the run; returns at once. */
    public void follow(Flux<RunEvent> events) {
        subscription = inputs(events, TICK, Schedulers.parallel(), clock)
                .publishOn(ui, 256)
                .subscribe(this::accept, this::failed, () -> done.complete(null));
    }

    /**
     * Waits (a bounded time) until the view has shown the end of the run, then hands the
     * terminal back as it found it: full-screen scroll region, the summary on screen.
     */
    @Override
    public void close() {
        if (subscription == null) {
            done.complete(null);
        }
        try {
            done.get(DRAIN.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the view failed or fell behind: still give the terminal back below
        }
        if (subscription != null) {
            subscription.dispose();
        }
        CompletableFuture<Void> restored = CompletableFuture.runAsync(this::restore, thread);
        try {
            restored.get(DRAIN.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // nothing left to do for a terminal that does not answer
        }
        ui.dispose();
        thread.shutdown();
        closeQuietly(terminal);
    }

    /** The run's events and the clock, as one stream that ends with the events. */
    static Flux<Input> inputs(Flux<RunEvent> events, Duration tick, Scheduler timer, Clock clock) {
        Flux<Input> ticks = Flux.interval(tick, tick, timer)
                .onBackpressureDrop()
                .map(i -> (Input) new Input.Tick(clock.instant()))
                .takeUntilOther(events.then());
        return events.<Input>map(Input.Event::new).mergeWith(ticks);
    }

    /** What the view reacts to. */
    sealed interface Input {
        record Event(RunEvent event) implements Input {
        }

        record Tick(Instant now) implements Input {
        }
    }

    private void accept(Input input) {
        if (ended) {
            return;
        }
        if (input instanceof Input.Tick t) {
            state = reducer.tick(state, t.now());
            followResize();
            draw();
            return;
        }
        RunEvent event = ((Input.Event) input).event();
        state = reducer.apply(state, event);
        if (event instanceof RunEvent.Output o) {
            print(AttributedString.fromAnsi(o.line()));
        } else if (event instanceof RunEvent.Diag d) {
            if (shown.test(d.diagnostic())) {
                printWrapped(new AttributedStringBuilder().style(style(d.diagnostic().severity()))
                        .append(humanLine.apply(d.diagnostic())).toAttributedString());
            }
            draw();
        } else if (event instanceof RunEvent.Started) {
            draw();
        } else if (event instanceof RunEvent.Exited) {
            ended = true;
            if (reserved) {
                status.update(List.of());
            }
            ViewText.summary(state).forEach(this::printWrapped);
        }
        terminal.flush();
    }

    private void failed(Throwable e) {
        restore();
        terminal.writer().println("magus: the live view stopped: " + e);
        terminal.flush();
        done.completeExceptionally(e);
    }

    private void restore() {
        if (!ended && reserved) {
            ended = true;
            status.update(List.of());
            terminal.flush();
        }
    }

    /**
     * The status area keeps one height from the first draw to the last, reserved once: a
     * Status that grows or shrinks moves its scroll region under rows already drawn, mixing old
     * rows and new ones.
     */
    private void draw() {
        if (!reserved) {
            status.reserve(HEIGHT);
            reserved = true;
        }
        List<AttributedString> lines = new ArrayList<>(ViewText.status(state));
        while (lines.size() < HEIGHT) {
            lines.add(AttributedString.EMPTY);
        }
        status.update(lines.subList(0, HEIGHT));
    }

    private void print(AttributedString line) {
        terminal.writer().println(line.toAnsi(terminal));
    }

    /** magus's own line, wrapped at spaces to the terminal's width (the terminal would cut words). */
    private void printWrapped(AttributedString line) {
        ViewText.wrap(line, size.getColumns() > 0 ? size.getColumns() : 80).forEach(this::print);
    }

    private void followResize() {
        Size now = terminal.getSize();
        if (!now.equals(size)) {
            size = now;
            // The terminal has already re-wrapped the old full-width status rows below the
            // text: clear everything under the cursor, then reserve the rows anew.
            terminal.puts(Capability.save_cursor);
            status.resize(now);
            status.reset();
            terminal.puts(Capability.restore_cursor);
            terminal.puts(Capability.clr_eos);
            reserved = false;
        }
    }

    private static AttributedStyle style(Severity severity) {
        return switch (severity) {
            case ERROR -> AttributedStyle.DEFAULT.foreground(AttributedStyle.RED);
            case WARNING -> AttributedStyle.DEFAULT.foreground(AttributedStyle.YELLOW);
            case INFO, HINT, DEBUG -> AttributedStyle.DEFAULT.faint();
        };
    }

    private static void closeQuietly(Terminal t) {
        try {
            t.close();
        } catch (IOException e) {
            // The run is over and its status is what the caller returns; a terminal that
            // fails to close has nothing left to restore.
        }
    }
}
