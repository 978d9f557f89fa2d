package dev.magus.landlock.denials.stream;

import dev.magus.landlock.denials.PrefixConfirmer;

import dev.magus.events.DetailKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.landlock.denials.audit.AuditDiagnostics;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;
import reactor.test.scheduler.VirtualTimeScheduler;

class DenialMergerTest {

    private static Diagnostic exact(Operation op, String path, String blockers) {
        return Diagnostic.of(PrefixConfirmer.codeOf(op), "x", path, op, Layer.KERNEL, AuditDiagnostics.SOURCE)
                .withDetail(DetailKey.BLOCKERS.key(), blockers);
    }

    private static Diagnostic inferred(Operation op, String path) {
        return Diagnostic.of(PrefixConfirmer.codeOf(op), "x", path, op, Layer.KERNEL, "inferred:stderr");
    }

    @Test
    void exact_wins_over_an_inferred_twin_arriving_first() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        TestPublisher<Diagnostic> ex = TestPublisher.create();
        TestPublisher<Diagnostic> in = TestPublisher.create();
        Diagnostic e = exact(Operation.READ, "/h/f", "fs.read_file");
        StepVerifier.create(DenialMerger.merge(ex.flux(), in.flux(), Duration.ofMillis(500), vts))
                .then(() -> in.next(inferred(Operation.READ, "/h/f")))
                .then(() -> vts.advanceTimeBy(Duration.ofMillis(100)))
                .then(() -> ex.next(e))
                .expectNext(e)
                .then(() -> vts.advanceTimeBy(Duration.ofSeconds(1)))
                .then(() -> {
                    ex.complete();
                    in.complete();
                })
                .verifyComplete();
    }

    @Test
    void an_inferred_denial_without_exact_twin_is_emitted_after_the_window() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        Diagnostic i = inferred(Operation.WRITE, "/h/new");
        StepVerifier.create(DenialMerger.merge(Flux.never(), Flux.just(i), Duration.ofMillis(500), vts).take(1))
                .then(() -> vts.advanceTimeBy(Duration.ofMillis(499)))
                .expectNoEvent(Duration.ZERO)
                .then(() -> vts.advanceTimeBy(Duration.ofMillis(1)))
                .expectNext(i)
                .verifyComplete();
    }

    @Test
    void every_decision_of_an_approver_is_its_own_event_and_absorbs_its_inferred_twin() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        TestPublisher<Diagnostic> ex = TestPublisher.create();
        TestPublisher<Diagnostic> in = TestPublisher.create();
        Diagnostic once = exact(Operation.READ, "/h/f", "").withDetail(DetailKey.DECISION, "allow-once");
        Diagnostic deny = exact(Operation.READ, "/h/f", "").withDetail(DetailKey.DECISION, "deny");
        StepVerifier.create(DenialMerger.merge(ex.flux(), in.flux(), Duration.ofMillis(500), vts))
                .then(() -> ex.next(once))
                .expectNext(once)
                .then(() -> ex.next(deny))
                .expectNext(deny)
                .then(() -> in.next(inferred(Operation.READ, "/h/f")))
                .then(() -> vts.advanceTimeBy(Duration.ofSeconds(1)))
                .then(() -> {
                    ex.complete();
                    in.complete();
                })
                .verifyComplete();
    }

    @Test
    void a_late_exact_twin_is_not_a_second_diagnostic() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        TestPublisher<Diagnostic> ex = TestPublisher.create();
        Diagnostic i = inferred(Operation.READ, "/h/f");
        StepVerifier.create(DenialMerger.merge(ex.flux(), Flux.just(i), Duration.ofMillis(500), vts))
                .then(() -> vts.advanceTimeBy(Duration.ofSeconds(1)))
                .expectNext(i)
                .then(() -> ex.next(exact(Operation.READ, "/h/f", "fs.read_file")))
                .then(ex::complete)
                .verifyComplete();
    }

    @Test
    void a_create_audited_on_the_directory_matches_the_file_a_tool_named() {
        DenialMerger m = new DenialMerger();
        Diagnostic i = inferred(Operation.WRITE, "/h/new");
        m.hold(i);
        Diagnostic out = m.exact(exact(Operation.WRITE, "/h", "fs.make_reg")).orElseThrow();
        assertThat(out.details()).containsEntry(DetailKey.INFERRED_SUBJECT.key(), "/h/new");
        assertThat(m.release(i)).isEmpty();
        // A read of the directory is not a create in it.
        assertThat(DenialMerger.same(exact(Operation.READ, "/h", "fs.read_dir"), inferred(Operation.READ, "/h/f")))
                .isFalse();
        assertThat(DenialMerger.same(exact(Operation.WRITE, "/h", "fs.write_file"), inferred(Operation.WRITE, "/h/f")))
                .isFalse();
    }

    @Test
    void a_create_audited_first_waits_for_the_file_name() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        TestPublisher<Diagnostic> in = TestPublisher.create();
        TestPublisher<Diagnostic> ex = TestPublisher.create();
        StepVerifier.create(DenialMerger.merge(ex.flux(), in.flux(), Duration.ofMillis(500), vts))
                .then(() -> ex.next(exact(Operation.WRITE, "/h", "fs.make_reg")))
                .then(() -> vts.advanceTimeBy(Duration.ofMillis(100)))
                .then(() -> in.next(inferred(Operation.WRITE, "/h/new")))
                .expectNoEvent(Duration.ZERO)
                .then(() -> vts.advanceTimeBy(Duration.ofMillis(400)))
                .assertNext(d -> {
                    assertThat(d.source()).isEqualTo(AuditDiagnostics.SOURCE);
                    assertThat(d.details()).containsEntry(DetailKey.INFERRED_SUBJECT.key(), "/h/new");
                })
                .then(() -> vts.advanceTimeBy(Duration.ofSeconds(1)))
                .then(() -> {
                    ex.complete();
                    in.complete();
                })
                .verifyComplete();
    }

    @Test
    void different_denials_both_pass() {
        DenialMerger m = new DenialMerger();
        assertThat(m.exact(exact(Operation.READ, "/h/a", "fs.read_file"))).isPresent();
        Diagnostic other = inferred(Operation.READ, "/h/b");
        m.hold(other);
        assertThat(m.release(other)).contains(other);
        assertThat(other.code()).isEqualTo(Code.MGS2001);
    }

    @Test
    void an_inferred_denial_of_a_path_the_kernel_reported_with_another_operation_is_a_misreading() {
        // perl's "Can't open ~/.bashrc" of an append, read as a read: the audit record says write.
        DenialMerger m = new DenialMerger();
        assertThat(m.exact(exact(Operation.WRITE, "/h/.bashrc", "fs.write_file"))).isPresent();
        Diagnostic read = inferred(Operation.READ, "/h/.bashrc");
        m.hold(read);
        assertThat(m.release(read)).isEmpty();
        Diagnostic elsewhere = inferred(Operation.READ, "/h/other");
        m.hold(elsewhere);
        assertThat(m.release(elsewhere)).contains(elsewhere);
    }

    @Test
    void every_occurrence_is_counted_once_by_the_source_that_saw_it() {
        DenialMerger m = new DenialMerger();
        Diagnostic exact = new Diagnostic(Code.MGS2001, "x", "/h/c", Operation.READ, Layer.KERNEL, "audit", Map.of());
        Diagnostic inferred = new Diagnostic(Code.MGS2001, "x", "/h/c", Operation.READ, Layer.KERNEL, "inferred:stderr",
                Map.of());
        assertThat(m.exact(exact)).isPresent();
        m.hold(inferred);
        assertThat(m.release(inferred)).isEmpty();
        Diagnostic again = exact.withDetail(DetailKey.REPEAT.key(), "2");
        assertThat(m.exact(again)).contains(again);
        Diagnostic inferredAgain = inferred.withDetail(DetailKey.REPEAT.key(), "2");
        m.hold(inferredAgain);
        assertThat(m.release(inferredAgain)).as("the audit counts it").isEmpty();

        DenialMerger onlyInferred = new DenialMerger();
        onlyInferred.hold(inferred);
        assertThat(onlyInferred.release(inferred)).isPresent();
        onlyInferred.hold(inferredAgain);
        assertThat(onlyInferred.release(inferredAgain)).as("no audit: the output is the count").contains(inferredAgain);
    }
}
