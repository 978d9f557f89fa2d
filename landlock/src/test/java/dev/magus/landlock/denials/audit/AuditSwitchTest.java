package dev.magus.landlock.denials.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared audit switch: holders in a file under flock, the last live one restoring. */
class AuditSwitchTest {

    @TempDir
    Path dir;

    /** The kernel's switch, recorded. */
    static final class FakeControl implements AuditSwitch.Control {
        int enabled;
        int backlog = 64;
        final List<String> calls = new ArrayList<>();

        FakeControl(int enabled) {
            this.enabled = enabled;
        }

        @Override
        public AuditNetlink.Status status() {
            return new AuditNetlink.Status(enabled, 0, backlog, 0);
        }

        @Override
        public void setEnabled(int e) {
            calls.add("enabled " + e);
            enabled = e;
        }

        @Override
        public void setBacklogLimit(int limit) {
            calls.add("backlog " + limit);
            backlog = limit;
        }
    }

    private final Set<String> live = new HashSet<>();

    private AuditSwitch holder(String name, FakeControl control) {
        live.add(name);
        return new AuditSwitch(dir, control, name, live::contains);
    }

    @Test
    void the_first_to_end_does_not_switch_audit_off_under_the_other() {
        FakeControl kernel = new FakeControl(0);
        AuditSwitch a = holder("100 1", kernel);
        AuditSwitch b = holder("200 2", kernel);
        assertThat(a.acquire(true)).isTrue();
        assertThat(kernel.enabled).isEqualTo(1);
        assertThat(kernel.backlog).isEqualTo(AuditSwitch.BACKLOG);
        assertThat(b.acquire(true)).isTrue();
        assertThat(a.holders()).containsExactly("100 1", "200 2");

        a.release();
        assertThat(kernel.enabled).as("b still reads").isEqualTo(1);
        b.release();
        assertThat(kernel.enabled).as("the last one puts back what the first found").isZero();
        assertThat(kernel.backlog).isEqualTo(64);
        assertThat(kernel.calls).containsExactly("enabled 1", "backlog 8192", "enabled 0", "backlog 64");
        assertThat(Files.exists(dir.resolve("audit.holders"))).isFalse();
    }

    @Test
    void a_holder_that_died_holding_it_is_pruned_and_what_it_found_is_put_back() {
        FakeControl kernel = new FakeControl(0);
        AuditSwitch killed = holder("100 1", kernel);
        killed.acquire(true);
        live.remove("100 1");
        // The next process finds audit on (the dead one switched it) but restores "off".
        AuditSwitch next = holder("300 3", kernel);
        assertThat(next.acquire(true)).isTrue();
        assertThat(next.holders()).containsExactly("300 3");
        next.release();
        assertThat(kernel.enabled).isZero();
        assertThat(kernel.backlog).isEqualTo(64);
    }

    @Test
    void audit_that_was_on_already_is_left_on() {
        FakeControl kernel = new FakeControl(1);
        AuditSwitch a = holder("100 1", kernel);
        assertThat(a.acquire(false)).isTrue();
        a.release();
        assertThat(kernel.enabled).isEqualTo(1);
        assertThat(kernel.calls).isEmpty();
    }

    @Test
    void off_and_not_allowed_to_switch_changes_nothing() {
        FakeControl kernel = new FakeControl(0);
        assertThat(holder("100 1", kernel).acquire(false)).isFalse();
        assertThat(kernel.calls).isEmpty();
        assertThat(Files.exists(dir.resolve("audit.holders"))).isFalse();
    }

    @Test
    void this_process_is_a_live_holder_and_a_made_up_one_is_not() {
        String self = AuditSwitch.holder(ProcessHandle.current().pid()).orElseThrow();
        assertThat(self).startsWith(ProcessHandle.current().pid() + " ");
        AuditSwitch s = AuditSwitch.forProcess(dir, new FakeControl(1));
        s.acquire(false);
        assertThat(s.holders()).containsExactly(self);
        // A pid that was reused has another start time: not the holder.
        String[] f = self.split(" ");
        assertThat(AuditSwitch.holder(Long.parseLong(f[0]))).contains(self);
        s.release();
    }
}
