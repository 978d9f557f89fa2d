package dev.magus.orchestrator.pipeline;

import dev.magus.events.RunEvent;
import dev.magus.landlock.launch.Child;
import dev.magus.orchestrator.run.Passthrough;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.telemetry.dedupe.LandlockWarningOnce;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The run object handed to callers. A signal's effect depends on how far the run has got,
 * and each step is taken under one lock so that no signal falls between two of them: before
 * the spawn is decided, the first signal cancels the run by disposing its chain's subscription
 * ({@link RunStages}; no child starts; it ends with 128+N); from the decision until the child
 * is attached, signals are queued and sent to its group the moment it is; after that they go
 * straight to the group, until it is reaped.
 */
public final class RunHandle implements Run {
    private final RunJournal journal;
    private final Flux<RunEvent> events;
    private Child child;
    private boolean spawning;
    /** The signal that cancelled the run before its spawn, or 0. */
    private int cancelledBy;
    private final List<Integer> queued = new ArrayList<>();
    /** The subscription to the run's chain, until the spawn is decided; a cancelling signal disposes it. */
    private Disposable pipeline;

    public RunHandle(String id, Clock clock, LandlockWarningOnce once) {
        this.journal = new RunJournal(id, clock);
        this.events = journal.events().transform(once);
    }

    public RunJournal journal() {
        return journal;
    }

    /** The run's chain is subscribed: a signal that came first disposes it at once. */
    synchronized void pipeline(Disposable subscription) {
        if (spawning) {
            return;
        }
        this.pipeline = subscription;
        if (cancelledBy != 0) {
            subscription.dispose();
        }
    }

    /** The signal that cancelled the run before its spawn, or 0. */
    synchronized int cancelledBy() {
        return cancelledBy;
    }

    /**
     * Decides to spawn: from here a signal waits for the child instead of cancelling.
     *
     * @return the signal that cancelled the run already, or 0 when the spawn may go ahead
     */
    synchronized int beginSpawn() {
        if (cancelledBy == 0) {
            spawning = true;
            // From here a signal never disposes the chain: the run does not hold on to it.
            pipeline = null;
        }
        return cancelledBy;
    }

    /** The child is running: what was queued since {@link #beginSpawn()} reaches its group now, in order. */
    synchronized void attach(Child c) {
        this.child = c;
        if (cancelledBy != 0) {
            // Attached without beginSpawn: whatever started it, a cancelled run has no child.
            c.killGroup(cancelledBy);
        }
        for (int signal : queued) {
            c.killGroup(signal);
        }
        queued.clear();
    }

    @Override
    public String id() {
        return journal.runId();
    }

    @Override
    public Flux<RunEvent> events() {
        return events;
    }

    @Override
    public Mono<RunResult> result() {
        return journal.result();
    }

    @Override
    public void cancel() {
        signal(Child.SIGKILL);
    }

    @Override
    public synchronized void signal(int signal) {
        if (signal <= 0 || signal > 64) {
            throw new IllegalArgumentException("not a signal: " + signal);
        }
        if (child != null) {
            child.killGroup(signal);
        } else if (spawning) {
            queued.add(signal);
        } else if (cancelledBy == 0) {
            cancelledBy = signal;
            if (pipeline != null) {
                // Never blocks: the stage running now finishes on its own thread, and the run
                // ends once it has (Attempt#cancelled).
                pipeline.dispose();
            }
        }
    }

    /**
     * One line of magus's own on the child's stderr: an event, and on the pass-through too,
     * since a caller that passes the child's output through prints no output events.
     */
    static void say(RunHandle run, Passthrough passthrough, String line) {
        run.journal().output(RunEvent.Stream.STDERR, line);
        passthrough.stderr().ifPresent(err -> {
            try {
                err.write((line + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                err.flush();
            } catch (IOException e) {
                // the event carries it anyway
            }
        });
    }
}
