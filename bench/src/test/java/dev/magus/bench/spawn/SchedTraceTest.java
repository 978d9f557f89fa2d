package dev.magus.bench.spawn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** SchedTrace on a hand-made trace in tracefs's text format (shaped after a recorded one). */
class SchedTraceTest {
    // A confined spawn: the caller (java, 100) hands off to a spare (300) on CPU 0; the spare's
    // child (400) is created on CPU 0; its exec releases the spare, which is woken on the idle
    // CPU 1; the spare wakes the caller there. Then a floor spawn by the caller (child 500),
    // and a ProcessBuilder spawn (child 600, execs jspawnhelper), which must not count as a floor.
    // The refill thread (200) creates spares 300 and 301: it is no launch thread. Then spare 301
    // spawns (child 700) while the caller is still runnable.
    private static final List<String> TRACE = List.of(
            "# tracer: nop",
            " magus-sandbox-s-200     [001] d..2. 100.000100: sched_wakeup_new: comm=magus-sandbox-s pid=300 prio=120 target_cpu=001",
            " magus-sandbox-s-200     [001] d..2. 100.000200: sched_wakeup_new: comm=magus-sandbox-s pid=301 prio=120 target_cpu=001",
            "            java-100     [000] d..2. 100.001000: sched_waking: comm=magus-sandbox-s pid=300 prio=120 target_cpu=000",
            "            java-100     [000] d..3. 100.001002: sched_wakeup: comm=magus-sandbox-s pid=300 prio=120 target_cpu=000",
            "            java-100     [000] d..2. 100.001010: sched_switch: prev_comm=java prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=magus-sandbox-s next_pid=300 next_prio=120",
            " magus-sandbox-s-300     [000] d..2. 100.001100: sched_wakeup_new: comm=magus-sandbox-s pid=400 prio=120 target_cpu=000",
            " magus-sandbox-s-300     [000] d..2. 100.001101: sched_switch: prev_comm=magus-sandbox-s prev_pid=300 prev_prio=120 prev_state=D ==> next_comm=magus-sandbox-s next_pid=400 next_prio=120",
            "            true-400     [000] d..4. 100.001400: sched_waking: comm=magus-sandbox-s pid=300 prio=120 target_cpu=000",
            "          <idle>-0       [001] dNh2. 100.001480: sched_wakeup: comm=magus-sandbox-s pid=300 prio=120 target_cpu=001",
            "          <idle>-0       [001] d..2. 100.001481: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=magus-sandbox-s next_pid=300 next_prio=120",
            " magus-sandbox-s-300     [001] d..2. 100.001550: sched_waking: comm=java pid=100 prio=120 target_cpu=000",
            " magus-sandbox-s-300     [001] d..3. 100.001552: sched_wakeup: comm=java pid=100 prio=120 target_cpu=001",
            " magus-sandbox-s-300     [001] d..2. 100.001560: sched_switch: prev_comm=magus-sandbox-s prev_pid=300 prev_prio=120 prev_state=R ==> next_comm=java next_pid=100 next_prio=120",
            "            java-100     [001] d..2. 100.002000: sched_wakeup_new: comm=java pid=500 prio=120 target_cpu=001",
            "            java-100     [001] d..2. 100.002001: sched_switch: prev_comm=java prev_pid=100 prev_prio=120 prev_state=D ==> next_comm=java next_pid=500 next_prio=120",
            "            true-500     [001] ..... 100.002230: sched_process_exec: filename=/usr/bin/true pid=500 old_pid=500",
            "            true-500     [001] d..4. 100.002240: sched_waking: comm=java pid=100 prio=120 target_cpu=001",
            "            true-500     [001] dN.5. 100.002242: sched_wakeup: comm=java pid=100 prio=120 target_cpu=001",
            "            true-500     [001] d..2. 100.002300: sched_switch: prev_comm=true prev_pid=500 prev_prio=120 prev_state=R+ ==> next_comm=java next_pid=100 next_prio=120",
            "            java-100     [001] d..2. 100.003000: sched_wakeup_new: comm=java pid=600 prio=120 target_cpu=001",
            "            java-600     [001] ..... 100.003200: sched_process_exec: filename=/usr/lib/jvm/x/lib/jspawnhelper pid=600 old_pid=600",
            "            java-600     [001] d..4. 100.003210: sched_waking: comm=java pid=100 prio=120 target_cpu=001",
            "            java-600     [001] d..2. 100.003300: sched_switch: prev_comm=java prev_pid=600 prev_prio=120 prev_state=R+ ==> next_comm=java next_pid=100 next_prio=120",
            // A second confined spawn, where the caller is preempted by the spare before it parks
            // and is still runnable when the spare ends: it needs no wake-up.
            "            java-100     [001] d..2. 100.004000: sched_waking: comm=magus-sandbox-s pid=301 prio=120 target_cpu=001",
            "            java-100     [001] dN.3. 100.004002: sched_wakeup: comm=magus-sandbox-s pid=301 prio=120 target_cpu=001",
            "            java-100     [001] d..2. 100.004005: sched_switch: prev_comm=java prev_pid=100 prev_prio=120 prev_state=R ==> next_comm=magus-sandbox-s next_pid=301 next_prio=120",
            " magus-sandbox-s-301     [001] d..2. 100.004100: sched_wakeup_new: comm=magus-sandbox-s pid=700 prio=120 target_cpu=001",
            " magus-sandbox-s-301     [001] d..2. 100.004101: sched_switch: prev_comm=magus-sandbox-s prev_pid=301 prev_prio=120 prev_state=D ==> next_comm=java next_pid=100 next_prio=120",
            "            java-100     [001] d..2. 100.004110: sched_switch: prev_comm=java prev_pid=100 prev_prio=120 prev_state=R ==> next_comm=magus-sandbox-s next_pid=700 next_prio=120",
            "            true-700     [001] d..4. 100.004300: sched_waking: comm=magus-sandbox-s pid=301 prio=120 target_cpu=001",
            "            true-700     [001] dN.5. 100.004301: sched_wakeup: comm=magus-sandbox-s pid=301 prio=120 target_cpu=001",
            "            true-700     [001] d..2. 100.004310: sched_switch: prev_comm=true prev_pid=700 prev_prio=120 prev_state=R+ ==> next_comm=magus-sandbox-s next_pid=301 next_prio=120",
            " magus-sandbox-s-301     [001] d..2. 100.004400: sched_switch: prev_comm=magus-sandbox-s prev_pid=301 prev_prio=120 prev_state=X ==> next_comm=java next_pid=100 next_prio=120",
            "some line tracefs would not write");

    private static SchedTrace.Summary summary() {
        return SchedTrace.analyse(TRACE.stream().map(SchedTrace::parse).flatMap(Optional::stream).toList());
    }

    @Test
    void parsesCommandNamesWithSpacesAndDashes() {
        var e = SchedTrace.parse("  process reaper-9949    [000] d..3. 14369.937701: sched_wakeup: comm=VM Periodic Tas pid=9631 prio=120 target_cpu=001").orElseThrow();
        assertThat(e.comm()).isEqualTo("process reaper");
        assertThat(e.pid()).isEqualTo(9949);
        assertThat(e.cpu()).isZero();
        assertThat(e.targetPid()).isEqualTo(9631);
        assertThat(e.targetCpu()).isEqualTo(1);
        assertThat(SchedTrace.parse("# tracer: nop")).isEmpty();
    }

    @Test
    void followsASpawnHandedToALaunchThread() {
        var s = summary();
        assertThat(s.launchThreads()).as("the refill thread, which created two, is not one").isEqualTo(2);
        var handed = s.handed();
        assertThat(handed).hasSize(2);
        var h = handed.stream().filter(SchedTrace.Handed::callerParked).findFirst().orElseThrow();
        assertThat(h.wakeToRun()).isCloseTo(10, within());
        assertThat(h.runToClone()).isCloseTo(90, within());
        assertThat(h.cloneToRelease()).isCloseTo(300, within());
        assertThat(h.releaseToRun()).isCloseTo(80, within()); // its wake-up on the idle CPU 1, which runs it at once
        assertThat(h.runToWakeCaller()).isCloseTo(70, within());
        assertThat(h.wakeCallerToRun()).isCloseTo(10, within());
        assertThat(h.runToCallerRuns()).isCloseTo(80, within());
        assertThat(h.total()).isCloseTo(560, within());
        assertThat(h.childOnLaunchCpu()).isTrue();
        assertThat(h.launchStayed()).as("woken on CPU 1 after running on CPU 0").isFalse();
        assertThat(h.callerOnLaunchCpu()).isTrue();
    }

    @Test
    void aCallerThatNeededNoWakeUpIsFollowedToo() {
        var h = summary().handed().stream().filter(x -> !x.callerParked()).findFirst().orElseThrow();
        assertThat(h.wakeToRun()).isCloseTo(5, within());
        assertThat(h.runToClone()).isCloseTo(95, within());
        assertThat(h.releaseToRun()).isCloseTo(10, within());
        assertThat(h.runToWakeCaller()).isNaN();
        assertThat(h.wakeCallerToRun()).isNaN();
        assertThat(h.runToCallerRuns()).isCloseTo(90, within());
        assertThat(h.total()).isCloseTo(400, within());
        assertThat(h.callerOnLaunchCpu()).isTrue();
    }

    @Test
    void countsOnlyBarePosixSpawnsOnTheCallingThread() {
        var direct = summary().direct();
        assertThat(direct).hasSize(1); // not the jspawnhelper child
        assertThat(direct.get(0).cloneToRelease()).isCloseTo(240, within());
        assertThat(direct.get(0).releaseToRun()).isCloseTo(60, within());
        assertThat(direct.get(0).parentStayed()).isTrue();
    }

    @Test
    void tellsWakeUpsOfAnIdleCpuFromLocalOnes() {
        var s = summary();
        assertThat(s.idleWakes()).containsExactly(new double[]{80.0}, within());
        // the spares by the caller (2), the caller by the spare, the caller by the floor's child, the second spare by its child
        assertThat(s.localWakes()).hasSize(5);
        assertThat(SchedTrace.report(s)).contains("spawns handed to a launch thread: 2")
                .contains("launch threads (created one task each): 2; spawns followed to the caller running again: 2")
                .contains("caller parked (1)")
                .contains("posix_spawn on the calling thread (the floor and mode off; not ProcessBuilder): 1")
                .contains("onto another CPU that was idle");
    }

    private static org.assertj.core.data.Offset<Double> within() {
        return org.assertj.core.data.Offset.offset(0.01);
    }
}
