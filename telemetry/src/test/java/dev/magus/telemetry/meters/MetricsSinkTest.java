package dev.magus.telemetry.meters;

import dev.magus.events.DetailKey;
import static dev.magus.telemetry.TestEvents.T0;
import static dev.magus.telemetry.TestEvents.diag;
import static dev.magus.telemetry.TestEvents.exited;
import static dev.magus.telemetry.TestEvents.out;
import static dev.magus.telemetry.TestEvents.started;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.Mode;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

class MetricsSinkTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MetricsSink sink = new MetricsSink(registry, Clock.fixed(T0.plusSeconds(10), ZoneOffset.UTC));

    @Test
    void thousandDifferentPathsMakeOneCounterPerCodeAndLayer() {
        for (int i = 0; i < 1000; i++) {
            String run = "run-" + i;
            sink.accept(started(run, Mode.REQUIRED));
            sink.accept(diag(run, Code.MGS2001, i % 2 == 0 ? Layer.KERNEL : Layer.BINDING, "/home/u/secret-" + i));
            sink.accept(diag(run, Code.MGS2002, Layer.BINDING, "/home/u/.bashrc-" + i));
            sink.accept(exited(run, 1, 0));
        }

        assertThat(registry.find(MagusMeter.DIAGNOSTICS.meterName()).counters()).hasSize(3);
        assertThat(registry.get(MagusMeter.DIAGNOSTICS.meterName()).tags("code", "MGS2001", "layer", "kernel").counter().count())
                .isEqualTo(500);
        assertThat(registry.get(MagusMeter.DIAGNOSTICS.meterName()).tags("code", "MGS2001", "layer", "binding").counter().count())
                .isEqualTo(500);
        assertThat(registry.get(MagusMeter.DIAGNOSTICS.meterName()).tags("code", "MGS2002", "layer", "binding").counter().count())
                .isEqualTo(1000);
        assertThat(registry.find(MagusMeter.RUNS.meterName()).timers()).hasSize(1);
        assertThat(registry.getMeters()).hasSize(4);
        Set<String> tagValues = registry.getMeters().stream()
                .flatMap(m -> m.getId().getTags().stream()).map(Tag::getValue).collect(Collectors.toSet());
        assertThat(tagValues).containsExactlyInAnyOrder("MGS2001", "MGS2002", "kernel", "binding", "failed", "required");
    }

    @Test
    void everyMeterCarriesOnlyItsDocumentedTagKeys() {
        sink.accept(started("r", Mode.BEST_EFFORT));
        sink.accept(new RunEvent.Diag("r", T0, diag("r", Code.MGS2003, Layer.POLICY, "").diagnostic()
                .withDetail(DetailKey.DROPPED, 7)));
        sink.accept(exited("r", 0, 0));
        sink.landlockAbi(7);

        for (MagusMeter m : MagusMeter.values()) {
            Meter meter = registry.get(m.meterName()).meter();
            assertThat(meter.getId().getType()).as(m.meterName()).isEqualTo(m.type());
            assertThat(meter.getId().getTags()).extracting(Tag::getKey).as(m.meterName())
                    .containsExactlyInAnyOrderElementsOf(m.tagKeys());
            assertThat(meter.getId().getDescription()).isEqualTo(m.description());
        }
    }

    @Test
    void outcomesComeFromTheEvents() {
        run("ok", Mode.OFF, exited("ok", 0, 0));
        run("failed", Mode.BEST_EFFORT, exited("failed", 2, 0));
        run("signalled", Mode.REQUIRED, exited("signalled", 128 + 9, 9));
        // Refused before spawn: no Started, whatever the status.
        sink.accept(diag("refused-125", Code.MGS2010, Layer.POLICY, "--sandbox"));
        sink.accept(exited("refused-125", 125, 0));
        sink.accept(diag("refused-126", Code.MGS2007, Layer.BINDING, "/home/u/Downloads/x"));
        sink.accept(exited("refused-126", 126, 0));
        sink.accept(exited("refused-127", 127, 0));

        assertThat(timer("ok", "off").count()).isEqualTo(1);
        assertThat(timer("ok", "off").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(1500);
        assertThat(timer("failed", "best-effort").count()).isEqualTo(1);
        assertThat(timer("signalled", "required").count()).isEqualTo(1);
        assertThat(timer("refused", MetricsSink.UNKNOWN_MODE).count()).isEqualTo(3);
        assertThat(registry.find(MagusMeter.RUNS.meterName()).timers()).hasSize(4);
    }

    @Test
    void aStartedRunAfterWhichTheStreamCompletesWasCancelled() {
        Disposable d = sink.subscribe(Flux.just(started("c", Mode.REQUIRED), out("c", "working")));

        assertThat(d.isDisposed()).isTrue();
        assertThat(timer("cancelled", "required").count()).isEqualTo(1);
        // From Started (T0) to the clock (T0 + 10 s).
        assertThat(timer("cancelled", "required").totalTime(TimeUnit.SECONDS)).isEqualTo(10);
    }

    @Test
    void aStreamErrorFailsStartedRunsAndRefusesUnstartedOnes() {
        sink.subscribe(Flux.<RunEvent>just(started("a", Mode.OFF), diag("b", Code.MGS2004, Layer.POLICY, "sandbox.mode"))
                .concatWith(Flux.error(new IllegalStateException("pipeline broke"))));

        assertThat(timer("failed", "off").count()).isEqualTo(1);
        assertThat(timer("refused", MetricsSink.UNKNOWN_MODE).count()).isEqualTo(1);
    }

    @Test
    void disposingTheSubscriptionRecordsNoRun() {
        Sinks.Many<RunEvent> events = Sinks.many().multicast().onBackpressureBuffer();
        Disposable d = sink.subscribe(events.asFlux());
        events.tryEmitNext(started("x", Mode.REQUIRED));
        d.dispose();

        assertThat(registry.find(MagusMeter.RUNS.meterName()).timers()).isEmpty();
    }

    @Test
    void theModeTagIsOneOfTheThreeSpellingsSoRunsCannotMintSeries() {
        // The mode is typed (Mode), so a tag can only be one of its three spellings.
        for (int i = 0; i < 60; i++) {
            run("m" + i, Mode.values()[i % 3], exited("m" + i, 0, 0));
        }
        assertThat(registry.find(MagusMeter.RUNS.meterName()).timers()).hasSize(3);
        for (Mode m : Mode.values()) {
            assertThat(timer("ok", m.spelling()).count()).isEqualTo(20);
        }
    }

    @Test
    void droppedVariablesAreOneSamplePerNotice() {
        sink.accept(new RunEvent.Diag("a", T0, Diagnostic.of(Code.MGS2003, "dropped variables", "", Operation.NONE,
                Layer.POLICY, "env").withDetail(DetailKey.DROPPED, 12)));
        sink.accept(new RunEvent.Diag("b", T0, Diagnostic.of(Code.MGS2003, "variables dropped", "", Operation.NONE,
                Layer.POLICY, "env").withDetail(DetailKey.DROPPED, 3)));
        // The count is data: a number in the message alone is never parsed back out.
        sink.accept(new RunEvent.Diag("c", T0, Diagnostic.of(Code.MGS2003, "40 variables dropped", "", Operation.NONE,
                Layer.POLICY, "env")));
        sink.accept(diag("d", Code.MGS2001, Layer.KERNEL, "/x/42"));

        var summary = registry.get(MagusMeter.ENV_DROPPED.meterName()).summary();
        assertThat(summary.count()).isEqualTo(2);
        assertThat(summary.totalAmount()).isEqualTo(15);
        assertThat(summary.getId().getBaseUnit()).isEqualTo("variables");
    }

    @Test
    void theLandlockGaugeShowsTheProbedAbi() {
        assertThat(registry.find(MagusMeter.LANDLOCK_ABI.meterName()).gauge()).isNull();
        sink.landlockAbi(0);
        assertThat(registry.get(MagusMeter.LANDLOCK_ABI.meterName()).gauge().value()).isEqualTo(0);
        sink.landlockAbi(7);
        assertThat(registry.get(MagusMeter.LANDLOCK_ABI.meterName()).gauge().value()).isEqualTo(7);
        assertThatThrownBy(() -> sink.landlockAbi(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theMetersAreThoseOfTheIssue() {
        assertThat(MagusMeter.values()).extracting(MagusMeter::meterName)
                .containsExactly("magus.runs", "magus.diagnostics", "magus.env.dropped", "magus.landlock.abi");
        assertThat(MagusMeter.RUNS.tagKeys()).containsExactly("outcome", "mode");
        assertThat(MagusMeter.DIAGNOSTICS.tagKeys()).containsExactly("code", "layer");
        assertThat(Outcome.values()).extracting(Outcome::tag)
                .containsExactly("ok", "failed", "refused", "signalled", "cancelled");
    }

    private void run(String run, Mode mode, RunEvent.Exited exit) {
        sink.accept(started(run, mode));
        sink.accept(out(run, "line"));
        sink.accept(exit);
    }

    private Timer timer(String outcome, String mode) {
        return registry.get(MagusMeter.RUNS.meterName()).tags("outcome", outcome, "mode", mode).timer();
    }
}
