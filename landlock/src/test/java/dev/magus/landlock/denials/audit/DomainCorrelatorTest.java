package dev.magus.landlock.denials.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class DomainCorrelatorTest {

    private static AuditRecord.Access access(long serial, String domain, String path) {
        return new AuditRecord.Access(serial, domain, List.of("fs.read_file"), Optional.of(path));
    }

    private static AuditRecord.Domain allocated(long serial, String domain, long pid) {
        return new AuditRecord.Domain(serial, domain, "allocated", OptionalLong.of(pid), "sh");
    }

    /** A domain created by this magus (pid {@value #SELF}) on a launch thread named {@code comm}. */
    private static AuditRecord.Domain ours(long serial, String domain, String comm) {
        return new AuditRecord.Domain(serial, domain, "allocated", OptionalLong.of(SELF), comm);
    }

    private static final long SELF = 50;

    private final Map<Long, Long> parents = Map.of(300L, 200L, 200L, 100L);
    private final DomainCorrelator c = new DomainCorrelator(SELF, pid -> parents.containsKey(pid)
            ? OptionalLong.of(parents.get(pid)) : OptionalLong.empty());

    @Test
    void the_domain_record_ties_the_first_denial_and_later_ones_to_the_run() {
        c.register("run-1", 100, "");
        assertThat(c.accept(access(1, "d1", "/x"))).isEmpty();
        assertThat(c.accept(allocated(1, "d1", 100))).extracting(DomainCorrelator.Attributed::runId)
                .containsExactly("run-1");
        assertThat(c.accept(access(2, "d1", "/y"))).singleElement()
                .satisfies(a -> assertThat(a.access().path()).contains("/y"));
    }

    @Test
    void other_processes_domains_are_not_attributed() {
        c.register("run-1", 100, "");
        c.accept(access(1, "foreign", "/x"));
        assertThat(c.accept(allocated(1, "foreign", 999))).isEmpty();
        assertThat(c.accept(access(2, "foreign", "/y"))).isEmpty();
    }

    @Test
    void records_before_the_registration_wait_for_it() {
        c.accept(access(1, "d1", "/x"));
        assertThat(c.accept(allocated(1, "d1", 100))).isEmpty();
        assertThat(c.register("run-1", 100, "")).singleElement()
                .satisfies(a -> assertThat(a.access().path()).contains("/x"));
    }

    @Test
    void a_nested_domain_is_attributed_through_the_ancestry() {
        c.register("run-1", 100, "");
        c.accept(access(5, "nested", "/x"));
        assertThat(c.accept(allocated(5, "nested", 300))).extracting(DomainCorrelator.Attributed::runId)
                .containsExactly("run-1");
    }

    @Test
    void the_syscall_record_ties_a_domain_whose_allocation_was_missed() {
        c.register("run-1", 100, "");
        c.accept(access(7, "d9", "/x"));
        assertThat(c.accept(new AuditRecord.Syscall(7, 200, 100))).extracting(DomainCorrelator.Attributed::runId)
                .containsExactly("run-1");
    }

    @Test
    void unregistered_and_deallocated_forget_the_domain() {
        c.register("run-1", 100, "");
        c.accept(allocated(1, "d1", 100));
        c.unregister("run-1");
        assertThat(c.accept(access(2, "d1", "/x"))).isEmpty();
        c.register("run-2", 100, "");
        c.accept(new AuditRecord.Domain(3, "d1", "deallocated", OptionalLong.empty(), ""));
        assertThat(c.accept(access(4, "d1", "/x"))).isEmpty();
    }

    @Test
    void a_domain_of_this_magus_is_the_run_whose_tag_it_carries_though_its_child_is_gone() {
        // Two runs in flight; the child of run-2 exited at once: no process is left to look up.
        c.register("run-1", 100, "magus-d1");
        c.register("run-2", 400, "magus-d2");
        assertThat(c.accept(access(1, "d2", "/x"))).isEmpty();
        assertThat(c.accept(ours(1, "d2", "magus-d2"))).extracting(DomainCorrelator.Attributed::runId)
                .containsExactly("run-2");
        assertThat(c.accept(access(2, "d2", "/y"))).extracting(DomainCorrelator.Attributed::runId)
                .containsExactly("run-2");
    }

    @Test
    void a_tagged_domain_seen_before_its_run_registers_waits_for_that_run_only() {
        c.accept(access(1, "d7", "/x"));
        c.accept(ours(1, "d7", "magus-d7"));
        assertThat(c.register("run-1", 100, "magus-d6")).isEmpty();
        assertThat(c.register("run-2", 400, "magus-d7")).extracting(DomainCorrelator.Attributed::runId)
                .containsExactly("run-2");
    }

    @Test
    void an_untagged_domain_of_this_magus_with_one_run_in_flight_is_that_runs_at_once() {
        c.register("run-1", 100, "");
        c.accept(access(1, "d3", "/x"));
        assertThat(c.accept(ours(1, "d3", "java"))).extracting(DomainCorrelator.Attributed::runId)
                .containsExactly("run-1");
    }

    @Test
    void under_concurrency_the_first_attributable_record_settles_the_domain_and_what_waited() {
        c.register("run-1", 100, "");
        c.register("run-2", 400, "");
        c.accept(access(1, "d4", "/early"));
        assertThat(c.accept(ours(1, "d4", "java"))).isEmpty();
        // The first record's process is gone (no syscall record for it names a live one)...
        assertThat(c.accept(new AuditRecord.Syscall(1, 999, 998))).isEmpty();
        c.accept(access(2, "d4", "/second"));
        // ...the next names run-2's child: both records are run-2's, and later ones too.
        assertThat(c.accept(new AuditRecord.Syscall(2, 400, SELF))).extracting(a -> a.runId() + " " + a.access().path().orElseThrow())
                .containsExactlyInAnyOrder("run-2 /early", "run-2 /second");
        assertThat(c.accept(access(3, "d4", "/third"))).extracting(DomainCorrelator.Attributed::runId)
                .containsExactly("run-2");
    }

    @Test
    void a_syscall_record_that_came_before_the_registration_settles_at_it() {
        c.register("run-1", 100, "");
        c.register("run-2", 400, "");
        c.accept(access(1, "d5", "/x"));
        // Two runs in flight: the untagged domain waits; its syscall names pid 500, unknown yet.
        assertThat(c.accept(ours(1, "d5", "java"))).isEmpty();
        assertThat(c.accept(new AuditRecord.Syscall(1, 500, SELF))).isEmpty();
        assertThat(c.register("run-3", 500, "")).extracting(DomainCorrelator.Attributed::runId).containsExactly("run-3");
    }

    @Test
    void the_records_of_a_domain_freed_before_its_run_registered_still_reach_it() {
        c.accept(access(1, "d8", "/x"));
        c.accept(ours(1, "d8", "magus-d8"));
        c.accept(new AuditRecord.Domain(2, "d8", "deallocated", OptionalLong.empty(), ""));
        assertThat(c.register("run-1", 100, "magus-d8")).hasSize(1);
    }

    @Test
    void late_records_of_an_ended_run_are_dropped_not_kept() {
        c.register("run-1", 100, "magus-d1");
        c.accept(access(1, "d1", "/x"));
        c.accept(ours(1, "d1", "magus-d1"));
        c.unregister("run-1");
        assertThat(c.accept(access(2, "d1", "/y"))).isEmpty();
        assertThat(c.register("run-2", 100, "")).isEmpty();
        assertThat(c.runsInFlight()).isEqualTo(1);
    }
}
