package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.landlock.supervise.Support;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Supervised runs through the product's own path: the run's real policy checks what the
 * supervisor read from the child, and its exact report merges with the inferred one.
 */
class SupervisedRunsTest {
    @TempDir
    Path root;
    TestHost t;
    Path secret;

    @BeforeEach
    void setUp() throws Exception {
        TestHost.assumeLandlock();
        Support s = Support.probe();
        if (!s.available()) {
            System.err.println("SKIP SupervisedRunsTest: " + s.reason());
        }
        Assumptions.assumeTrue(s.available(), s.reason());
        t = new TestHost(root).mode("required");
        secret = Files.writeString(Files.createDirectories(t.home.resolve(".aws")).resolve("credentials"), "AKIAFAKEFAKEFAKE\n");
    }

    @Test
    void aSilentReadIsAnExactDenialFromTheSupervisor() throws Exception {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "cat " + secret + " 2>/dev/null; cat " + t.workspace.resolve("missing") + " 2>/dev/null; true")
                .supervise(true).build());
        List<RunEvent> events = TestHost.events(run);
        assertThat(KernelDenialsInRunsTest.kernel(events)).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2001);
            assertThat(d.subject()).isEqualTo(secret.toString());
            assertThat(d.source()).isEqualTo("supervisor");
            assertThat(d.details()).containsEntry("class", "attack");
        });
        assertThat(run.result().block(TestHost.DEADLINE).status()).isZero();
    }

    @Test
    void aPrintedDenialIsReportedOnceAndExactly() throws Exception {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", "cat " + secret + "; true")
                .supervise(true).build());
        assertThat(KernelDenialsInRunsTest.kernel(TestHost.events(run))).singleElement()
                .satisfies(d -> assertThat(d.source()).isEqualTo("supervisor"));
    }

    @Test
    void anApprovedReadReachesTheChildAndItsDecisionIsAnEvent() throws Exception {
        List<dev.magus.landlock.supervise.Ask> asks = new java.util.concurrent.CopyOnWriteArrayList<>();
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", "cat " + secret + "; cat " + secret
                + "; true").failOnDenial(true).approver(ask -> {
                    asks.add(ask);
                    return reactor.core.publisher.Mono.just(asks.size() == 1 ? dev.magus.landlock.supervise.Decision.ALLOW_ONCE
                            : dev.magus.landlock.supervise.Decision.DENY);
                }).build());
        List<RunEvent> events = TestHost.events(run);
        assertThat(TestHost.lines(events, RunEvent.Stream.STDOUT)).as(TestHost.text(events)).containsExactly("AKIAFAKEFAKEFAKE");
        assertThat(asks).hasSize(2).allSatisfy(a -> assertThat(a.resolved()).isEqualTo(secret.toString()));
        // Each decision is an event of its own; the printed refusal of the second read is its twin.
        assertThat(KernelDenialsInRunsTest.kernel(events)).allSatisfy(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2001);
            assertThat(d.source()).isEqualTo("supervisor");
        }).extracting(d -> d.details().get("decision")).containsExactly("allow-once", "deny");
        // The denied read fails the run under --fail-on-denial; the allowed one alone would not.
        assertThat(run.result().block(TestHost.DEADLINE).status()).isEqualTo(3);
    }

    @Test
    void theWorkspaceSettingSupervisesEveryRun() throws Exception {
        t.yaml("sandbox:\n  mode: required\n  supervise: true\n");
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", "cat " + secret + " 2>/dev/null; true")
                .build());
        assertThat(KernelDenialsInRunsTest.kernel(TestHost.events(run))).extracting(Diagnostic::source).containsExactly("supervisor");
    }

    /**
     * The supervisor dies mid-run (its thread stopped as an error would end it): the child's
     * next intercepted call fails, and the run ends supervised-failed, with a line and status 1
     * although the child succeeded.
     */
    @Test
    @SuppressWarnings("removal")
    void aSupervisorThatDiesMidRunFailsTheChildsNextCallAndTheRun() throws Exception {
        Path ready = t.workspace.resolve("ready");
        Path go = t.workspace.resolve("go");
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                ": > ready; while [ ! -e go ]; do :; done; cat /etc/hostname > /dev/null 2>&1; echo \"cat=$?\"")
                .supervise(true).build());
        long until = System.nanoTime() + TestHost.DEADLINE.toNanos();
        while (!Files.exists(ready) && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        List<Thread> supervisors = Thread.getAllStackTraces().keySet().stream()
                .filter(th -> th.getName().startsWith("magus-supervisor-") && th.isAlive()).toList();
        assertThat(supervisors).as("the run's supervisor").singleElement();
        supervisors.get(0).stop();
        supervisors.get(0).join(5000);
        Files.writeString(go, "");
        List<RunEvent> events = TestHost.events(run);
        List<String> out = TestHost.lines(events, RunEvent.Stream.STDOUT);
        assertThat(out).singleElement().satisfies(l -> assertThat(l).startsWith("cat=").isNotEqualTo("cat=0"));
        assertThat(TestHost.lines(events, RunEvent.Stream.STDERR))
                .anySatisfy(l -> assertThat(l).startsWith("magus: supervised-failed: "));
        assertThat(run.result().block(TestHost.DEADLINE).status()).isEqualTo(1);
    }
}
