package dev.magus.orchestrator;

import static dev.magus.orchestrator.TestHost.DEADLINE;
import static dev.magus.orchestrator.TestHost.events;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.RunEvent;
import dev.magus.landlock.launch.Child;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.Submission;
import dev.magus.orchestrator.run.RunResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Orchestrator#submitHere} with real children: on one of magus's I/O threads
 * ({@link Orchestrator#execute}) the run's stages stay on the calling thread and it returns
 * once the run has ended; the caller has the run before its first stage, and a signal given
 * then cancels it with no child; from any other thread it is {@code submit}.
 */
class SubmitHereTest {
    @TempDir
    Path root;
    TestHost t;
    Orchestrator orchestrator;

    @BeforeEach
    void setUp() {
        TestHost.assumeChildren();
        t = new TestHost(root).mode("best-effort");
        orchestrator = t.orchestrator();
    }

    /** An event and the thread it was emitted on. */
    private record Seen(RunEvent event, Thread thread) {
    }

    @Test
    void onAnIoThreadTheStagesStayOnItAndItReturnsOnceTheRunHasEnded() throws Exception {
        List<Seen> seen = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<Run> handed = new AtomicReference<>();
        AtomicReference<Integer> eventsWhenHanded = new AtomicReference<>();
        CompletableFuture<Thread> caller = new CompletableFuture<>();
        CompletableFuture<Integer> seenWhenReturned = new CompletableFuture<>();
        orchestrator.execute(() -> {
            caller.complete(Thread.currentThread());
            orchestrator.submitHere(Submission.of(RunRequest.builder(t.workspace, "sh", "-c", "echo here; exit 3").build())
                    .on(t.host()).observedBy(e -> seen.add(new Seen(e, Thread.currentThread()))), r -> {
                        handed.set(r);
                        eventsWhenHanded.set(seen.size());
                    });
            seenWhenReturned.complete(seen.size());
        });
        int atReturn = seenWhenReturned.get(60, TimeUnit.SECONDS);
        Thread thread = caller.get();
        assertThat(thread.getName()).startsWith("magus-io-");
        assertThat(eventsWhenHanded.get()).as("the run was handed over before any of its events").isZero();
        List<Seen> all = List.copyOf(seen);
        assertThat(all).as("every event, Exited among them, came before submitHere returned").hasSize(atReturn);
        assertThat(all.get(all.size() - 1).event()).isInstanceOfSatisfying(RunEvent.Exited.class,
                x -> assertThat(x.status()).isEqualTo(3));
        assertThat(all).filteredOn(s -> s.event() instanceof RunEvent.Started).singleElement()
                .satisfies(s -> assertThat(s.thread()).as("the stages ran on the calling thread").isSameAs(thread));
        assertThat(all).filteredOn(s -> s.event() instanceof RunEvent.Exited).singleElement()
                .satisfies(s -> assertThat(s.thread()).isSameAs(thread));
        assertThat(TestHost.lines(events(handed.get()), RunEvent.Stream.STDOUT)).containsExactly("here");
        assertThat(handed.get().result().block(DEADLINE).status()).isEqualTo(3);
        assertThat(t.tempBase).as("the private temp dir is gone").isEmptyDirectory();
    }

    @Test
    void aSignalAsTheRunIsHandedOverCancelsItBeforeAnyChild() throws Exception {
        AtomicReference<Run> handed = new AtomicReference<>();
        CompletableFuture<Void> returned = new CompletableFuture<>();
        orchestrator.execute(() -> {
            orchestrator.submitHere(Submission.of(RunRequest.builder(t.workspace, "sh", "-c", "touch spawned").build())
                    .on(t.host()), r -> {
                        handed.set(r);
                        r.signal(Child.SIGTERM);
                    });
            returned.complete(null);
        });
        returned.get(60, TimeUnit.SECONDS);
        Run run = handed.get();
        RunResult result = run.result().block(DEADLINE);
        assertThat(result.status()).isEqualTo(128 + Child.SIGTERM);
        assertThat(result.signal()).isEqualTo(Child.SIGTERM);
        List<RunEvent> events = events(run);
        assertThat(events).noneMatch(e -> e instanceof RunEvent.Started);
        assertThat(events).filteredOn(e -> e instanceof RunEvent.Exited).hasSize(1);
        assertThat(t.workspace.resolve("spawned")).doesNotExist();
        assertThat(t.tempBase).isEmptyDirectory();
    }

    @Test
    void fromAnotherThreadItReturnsAtOnceAsSubmitDoes() {
        AtomicReference<Run> handed = new AtomicReference<>();
        // The test's own thread is none of magus's I/O threads.
        orchestrator.submitHere(Submission.of(RunRequest.builder(t.workspace, "sleep", "300").build()).on(t.host()),
                handed::set);
        Run run = handed.get();
        assertThat(run).isNotNull();
        assertThat(run.result().toFuture()).as("returned while the child runs").isNotDone();
        run.cancel();
        assertThat(run.result().block(DEADLINE).status()).isEqualTo(128 + Child.SIGKILL);
    }
}
