package dev.magus.orchestrator;

import dev.magus.orchestrator.pipeline.RunJournal;

import static dev.magus.orchestrator.TestHost.DEADLINE;
import static dev.magus.orchestrator.TestHost.lines;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.scheduler.Schedulers;

/**
 * The run journal keeps a window of the output, not the whole run (memory per run
 * must not grow with its output): a subscriber that is there while the run goes gets every
 * line, even one that falls far behind; one that comes after the end gets every event that is
 * not output and the last {@link RunJournal#HISTORY} lines. Mode off: the journal is the same
 * whatever the confinement.
 */
class JournalWindowTest {
    static final int LINES = 5 * RunJournal.HISTORY;

    @TempDir
    Path root;

    @Test
    void aLiveSubscriberLosesNothingAndALateOneGetsTheWindow() throws Exception {
        TestHost t = new TestHost(root);
        Path go = root.resolve("go");
        // The child waits until both subscribers are there: they are live from its first line.
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "while [ ! -e '" + go + "' ]; do sleep 0.01; done; seq 1 " + LINES).build());
        CompletableFuture<List<RunEvent>> fast = run.events().collectList().toFuture();
        // A slow one: requests 8 at a time and sleeps on its first 200 events, so the run ends
        // long before it has read them.
        CompletableFuture<List<RunEvent>> slow = run.events().publishOn(Schedulers.single(), 8).index()
                .doOnNext(i -> {
                    if (i.getT1() < 200) {
                        try {
                            Thread.sleep(5);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }).map(i -> i.getT2()).collectList().toFuture();
        Files.createFile(go);
        assertThat(run.result().block(DEADLINE).status()).isZero();
        assertThat(slow).as("the slow subscriber is still reading when the run has ended").isNotDone();

        List<String> expected = IntStream.rangeClosed(1, LINES).mapToObj(Integer::toString).toList();
        List<RunEvent> all = fast.get();
        assertThat(lines(all, RunEvent.Stream.STDOUT)).isEqualTo(expected);
        assertThat(slow.get()).isEqualTo(all);
        assertThat(all.get(0)).isInstanceOf(RunEvent.Started.class);
        assertThat(all.get(all.size() - 1)).isInstanceOf(RunEvent.Exited.class);

        List<RunEvent> late = run.events().collectList().block(DEADLINE);
        assertThat(lines(late, RunEvent.Stream.STDOUT)).isEqualTo(expected.subList(LINES - RunJournal.HISTORY, LINES));
        assertThat(late).filteredOn(e -> !(e instanceof RunEvent.Output))
                .isEqualTo(all.stream().filter(e -> !(e instanceof RunEvent.Output)).toList());
        assertThat(late.get(0)).isInstanceOf(RunEvent.Started.class);
        assertThat(late.get(late.size() - 1)).isInstanceOf(RunEvent.Exited.class);
    }
}
