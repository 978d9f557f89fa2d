package dev.magus.orchestrator.run;

import dev.magus.events.RunEvent;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A submitted run ({@link dev.magus.orchestrator.Orchestrator#submit(RunRequest)}). It goes on
 * whether or not anyone subscribes, and only {@link #cancel()} stops it: a subscriber that
 * cancels its subscription to {@link #events()} ends its own replay and nothing else, so
 * subscribers may come and go safely.
 *
 * <p>For a run owned by its subscription, the cold form, where cancelling
 * the subscription kills the child's whole process group, use
 * {@link dev.magus.orchestrator.Orchestrator#run(RunRequest)} instead.
 */
public interface Run {
    String id();

    /**
     * Every event of the run, from its start, for every subscriber however late: the run keeps
     * its events until it is garbage. Output is read off the child's pipes as fast as the child
     * writes it, whatever subscribers do, so a slow subscriber never blocks the child and never
     * loses the exit event.
     */
    Flux<RunEvent> events();

    /** Completes once, when the run has ended (exited, refused or cancelled). */
    Mono<RunResult> result();

    /**
     * Kills the child's whole process group; the run then ends with 128+9. Before the spawn it
     * keeps the child from starting, or kills it as soon as it is attached. Idempotent.
     */
    void cancel();

    /**
     * Sends signal {@code signal} (SIGINT, SIGTERM, SIGHUP, ...) to the run, so that none is lost
     * whenever it comes: before the spawn it cancels the run, which then ends with 128+N and
     * never starts its child (the first signal counts); once the spawn is under way the signal
     * reaches the child's process group as soon as the child exists; after that it goes straight
     * to the group. Once the child has ended and been reaped it does nothing.
     */
    void signal(int signal);
}
