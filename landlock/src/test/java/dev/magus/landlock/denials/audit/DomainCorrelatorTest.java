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
        return new AuditRecord.Domain(serial, domain, "allocated", OptionalLong.of(pid));
    }

    private final Map<Long, Long> parents = Map.of(300L, 200L, 200L, 100L);
    private final DomainCorrelator c = new DomainCorrelator(pid -> parents.containsKey(pid)
            ? OptionalLong.of(parents.get(pid)) : OptionalLong.empty());

    @Test
    void the_domain_record_ties_the_first_denial_and_later_ones_to_the_run() {
        c.register("run-1", 100);
        assertThat(c.accept(access(1, "d1", "/x"))).isEmpty();
        assertThat(c.accept(allocated(1, "d1", 100))).extracting(DomainCorrelator.Attributed::runId)
                .containsExactly("run-1");
        assertThat(c.accept(access(2, "d1", "/y"))).singleElement()
                .satisfies(a -> assertThat(a.access().path()).contains("/y"));
    }

    @Test
    void other_processes_domains_are_not_attributed() {
        c.register("run-1", 100);
        c.accept(access(1, "foreign", "/x"));
        assertThat(c.accept(allocated(1, "foreign", 999))).isEmpty();
        assertThat(c.accept(access(2, "foreign", "/y"))).isEmpty();
    }

    @Test
    void records_before_the_registration_wait_for_it() {
        c.accept(access(1, "d1", "/x"));
        assertThat(c.accept(allocated(1, "d1", 100))).isEmpty();
        assertThat(c.register("run-1", 100)).singleElement()
                .satisfies(a -> assertThat(a.access().path()).contains("/x"));
    }

    @Test
    void a_nested_domain_is_attributed_through_the_ancestry() {
        c.register("run-1", 100);
        c.accept(access(5, "nested", "/x"));
        assertThat(c.accept(allocated(5, "nested", 300))).extracting(DomainCorrelator.Attributed::runId)
                .containsExactly("run-1");
    }

    @Test
    void the_syscall_record_ties_a_domain_whose_allocation_was_missed() {
        c.register("run-1", 100);
        c.accept(access(7, "d9", "/x"));
        assertThat(c.accept(new AuditRecord.Syscall(7, 200, 100))).extracting(DomainCorrelator.Attributed::runId)
                .containsExactly("run-1");
    }

    @Test
    void unregistered_and_deallocated_forget_the_domain() {
        c.register("run-1", 100);
        c.accept(allocated(1, "d1", 100));
        c.unregister("run-1");
        assertThat(c.accept(access(2, "d1", "/x"))).isEmpty();
        c.register("run-2", 100);
        c.accept(new AuditRecord.Domain(3, "d1", "deallocated", OptionalLong.empty()));
        assertThat(c.accept(access(4, "d1", "/x"))).isEmpty();
    }
}
