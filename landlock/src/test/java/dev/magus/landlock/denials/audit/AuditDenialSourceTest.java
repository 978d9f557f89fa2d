package dev.magus.landlock.denials.audit;

import dev.magus.events.DetailKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import dev.magus.events.SandboxException;
import dev.magus.landlock.denials.Confinement;
import dev.magus.landlock.denials.stream.DenialMerger;
import dev.magus.landlock.denials.Fixture;
import dev.magus.landlock.denials.stream.KernelDenialStream;
import dev.magus.landlock.denials.PrefixConfirmer;
import dev.magus.landlock.denials.infer.KernelDenials;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Sinks;

/**
 * The audit source for real: a Landlock-confined child (restricted with
 * LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON by the test helper) is refused, the kernel audits it,
 * and the source turns the records into the run's diagnostics. Needs root (or CAP_AUDIT_READ
 * and CAP_AUDIT_CONTROL), Landlock ABI 7 and a kernel with audit; skips with the reason
 * otherwise. If audit is off, the test switches it on through the explicit option and checks
 * that closing the source switches it back off.
 */
class AuditDenialSourceTest {

    @TempDir
    Path root;

    private Fixture fixture;
    private AuditAvailability.Available available;

    @BeforeEach
    void requireAudit() {
        AuditAvailability a = AuditDenialSource.probe();
        System.err.println("audit availability: " + a.describe());
        String reason = null;
        if (a instanceof AuditAvailability.Unavailable u) {
            reason = u.reason();
        } else if (Confinement.abi() < 7) {
            reason = "the test helper cannot confine with Landlock ABI 7 here";
        } else if (((AuditAvailability.Available) a).enabled() == 0 && !"root".equals(System.getProperty("user.name"))) {
            reason = "audit is off and only root may switch it on for the test";
        }
        if (reason != null) {
            System.err.println("SKIPPED: Landlock audit cannot be tested here: " + reason);
            Assumptions.assumeTrue(false, reason);
        }
        available = (AuditAvailability.Available) a;
        fixture = Fixture.create(root);
    }

    private Process spawnConfined(String script) throws IOException {
        return spawnConfined(script, true);
    }

    private Process spawnConfined(String script, boolean logNewExec) throws IOException {
        List<String> argv = List.of("sh", "-c", script);
        ProcessBuilder pb = new ProcessBuilder(Confinement.command(fixture.ws(), List.of(), argv))
                .directory(fixture.ws().toFile());
        pb.environment().put("HOME", fixture.home().toString());
        pb.environment().put("CONFINE_LOG_NEW_EXEC", logNewExec ? "on" : "off");
        pb.redirectOutput(root.resolve("out-" + System.nanoTime()).toFile());
        return pb.redirectError(root.resolve("err-" + System.nanoTime() + ".txt").toFile()).start();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        for (int i = 0; i < 300 && !condition.getAsBoolean(); i++) {
            Thread.sleep(100);
        }
        assertThat(condition.getAsBoolean()).as(what).isTrue();
    }

    @Test
    void the_kernels_records_become_the_runs_diagnostics_and_nothing_of_other_processes() throws Exception {
        Path home = fixture.home();
        Files.writeString(home.resolve("a b"), "x");
        try (AuditDenialSource source = AuditDenialSource.open(new AuditOptions(true))) {
            // A confined process magus did not spawn: its denial must not reach the run.
            Process foreign = spawnConfined("cat " + home.resolve("m.c"));
            foreign.waitFor(60, TimeUnit.SECONDS);

            Process child = spawnConfined("cat " + home.resolve(".aws/credentials") + "; echo x > " + home.resolve("new")
                    + "; cat '" + home.resolve("a b") + "'; " + home.resolve("tool.sh")
                    + "; cat " + home.resolve(".aws/credentials"));
            List<Diagnostic> seen = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch done = new CountDownLatch(1);
            source.track("run-1", child.pid(), "", fixture.ws(), new PrefixConfirmer(home))
                    .subscribe(seen::add, e -> done.countDown(), done::countDown);
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
            await(() -> seen.size() >= 5, "five denials audited: " + seen);
            source.untrack("run-1");
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            // The credential was read twice: the second record is one more occurrence, marked.
            assertThat(seen).filteredOn(d -> d.details().containsKey(DetailKey.REPEAT.key()))
                    .singleElement().satisfies(d -> {
                        assertThat(d.subject()).isEqualTo(home.resolve(".aws/credentials").toString());
                        assertThat(d.details()).containsEntry(DetailKey.REPEAT.key(), "2");
                    });
            seen.removeIf(d -> d.details().containsKey(DetailKey.REPEAT.key()));

            assertThat(seen).allSatisfy(d -> {
                assertThat(d.layer()).isEqualTo(Layer.KERNEL);
                assertThat(d.source()).isEqualTo("audit");
                assertThat(d.details()).containsKeys("allow_yaml", DetailKey.BLOCKERS.key(), DetailKey.DOMAIN.key());
            });
            assertThat(seen).extracting(d -> d.code() + " " + d.subject() + " " + d.details().get("blockers"))
                    .containsExactlyInAnyOrder(
                            "MGS2001 " + home.resolve(".aws/credentials") + " fs.read_file",
                            "MGS2002 " + home + " fs.make_reg",
                            "MGS2001 " + home.resolve("a b") + " fs.read_file",
                            "MGS2007 " + home.resolve("tool.sh") + " fs.execute,fs.read_file");
            assertThat(source.failure()).isEmpty();
        }
        assertThat(((AuditAvailability.Available) AuditDenialSource.probe()).enabled())
                .as("audit switched back to how it was").isEqualTo(available.enabled());
    }

    @Test
    void both_sources_seeing_one_denial_give_one_diagnostic_and_exact_wins() throws Exception {
        Path home = fixture.home();
        try (AuditDenialSource source = AuditDenialSource.open(new AuditOptions(true))) {
            Process child = spawnConfined("cat " + home.resolve(".aws/credentials") + "; echo x > " + home.resolve("new"));
            PrefixConfirmer policy = new PrefixConfirmer(home);
            Sinks.Many<Diagnostic> inferred = Sinks.many().unicast().onBackpressureBuffer();
            List<Diagnostic> merged = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch done = new CountDownLatch(1);
            DenialMerger.merge(source.track("run-2", child.pid(), "", fixture.ws(), policy), inferred.asFlux(),
                    Duration.ofSeconds(2), reactor.core.scheduler.Schedulers.parallel()).subscribe(merged::add, e -> done.countDown(), done::countDown);
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();

            KernelDenials fromOutput = new KernelDenials(policy, KernelDenials.Child.at(fixture.ws()));
            Path err = Files.list(root).filter(p -> p.getFileName().toString().startsWith("err-")).findFirst().orElseThrow();
            List<String> lines = Files.readAllLines(err);
            assertThat(lines).hasSize(2);
            for (String line : lines) {
                fromOutput.accept(RunEvent.Stream.STDERR, line).forEach(inferred::tryEmitNext);
            }
            inferred.tryEmitComplete();
            await(() -> merged.size() >= 2, "both exact denials: " + merged);
            source.untrack("run-2");
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();

            assertThat(merged).hasSize(2).allSatisfy(d -> assertThat(d.source()).isEqualTo("audit"));
            assertThat(merged).filteredOn(d -> d.operation() == Operation.WRITE).singleElement()
                    .satisfies(d -> assertThat(d.details()).containsEntry(DetailKey.INFERRED_SUBJECT.key(),
                            home.resolve("new").toString()));
        }
    }

    @Test
    void the_run_stream_of_both_sources_reports_each_denial_once() throws Exception {
        Path home = fixture.home();
        try (AuditDenialSource source = AuditDenialSource.open(new AuditOptions(true))) {
            Process child = spawnConfined("cat " + home.resolve(".aws/credentials") + "; echo x > " + home.resolve("new")
                    + "; touch " + fixture.ws().resolve("fine"));
            Sinks.Many<RunEvent.Output> output = Sinks.many().unicast().onBackpressureBuffer();
            List<Diagnostic> seen = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch done = new CountDownLatch(1);
            dev.magus.landlock.denials.stream.KernelDenialStream.forRun(new dev.magus.landlock.denials.stream.KernelDenialStream.Sources(
                    new dev.magus.landlock.denials.stream.KernelDenialStream.RunChild("run-3", child.pid(), "", fixture.ws(), java.util.List.of()),
                    new PrefixConfirmer(home), output.asFlux(), java.util.Optional.of(source), java.util.Optional.empty(), Duration.ofSeconds(1)))
                    .subscribe(seen::add, e -> done.countDown(), done::countDown);
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
            Path err = Files.list(root).filter(p -> p.getFileName().toString().startsWith("err-")).findFirst().orElseThrow();
            for (String line : Files.readAllLines(err)) {
                output.tryEmitNext(new RunEvent.Output("run-3", java.time.Instant.now(), RunEvent.Stream.STDERR, line));
            }
            output.tryEmitComplete();
            assertThat(done.await(30, TimeUnit.SECONDS)).as("the stream ends after the output and a window").isTrue();

            assertThat(seen).extracting(d -> d.code() + " " + d.subject() + " " + d.source()).containsExactlyInAnyOrder(
                    "MGS2001 " + home.resolve(".aws/credentials") + " audit",
                    "MGS2002 " + home + " audit");
        }
    }

    /**
     * Without LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON the denials of the exec'd command are not
     * logged at all. The kernel queues records in order, so once the second child's denial
     * has arrived, the first child's would have arrived before it.
     */
    @Test
    void without_log_new_exec_on_the_commands_denials_are_never_audited() throws Exception {
        Path creds = fixture.home().resolve(".aws/credentials");
        try (AuditDenialSource source = AuditDenialSource.open(new AuditOptions(true))) {
            Process quiet = spawnConfined("cat " + creds, false);
            List<Diagnostic> quietSeen = Collections.synchronizedList(new ArrayList<>());
            source.track("quiet", quiet.pid(), "", fixture.ws(), new PrefixConfirmer(fixture.home())).subscribe(quietSeen::add);
            assertThat(quiet.waitFor(60, TimeUnit.SECONDS)).isTrue();

            Process logged = spawnConfined("cat " + creds, true);
            List<Diagnostic> loggedSeen = Collections.synchronizedList(new ArrayList<>());
            source.track("logged", logged.pid(), "", fixture.ws(), new PrefixConfirmer(fixture.home())).subscribe(loggedSeen::add);
            assertThat(logged.waitFor(60, TimeUnit.SECONDS)).isTrue();
            await(() -> !loggedSeen.isEmpty(), "the logged child's denial");

            assertThat(loggedSeen).extracting(Diagnostic::subject).containsExactly(creds.toString());
            assertThat(quietSeen).isEmpty();
            source.untrack("quiet");
            source.untrack("logged");
        }
    }

    @Test
    void audit_that_is_off_is_not_switched_on_without_the_explicit_option() {
        if (!(available.enabled() == 0)) {
            System.err.println("SKIP AuditDenialSourceTest: " + "audit is already on here; nothing to refuse");
        }
        Assumptions.assumeTrue(available.enabled() == 0, "audit is already on here; nothing to refuse");
        assertThatThrownBy(() -> AuditDenialSource.open(new AuditOptions(false)))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.code()).isEqualTo(Code.MGS2004);
                    assertThat(e.diagnostic().source()).isEqualTo("audit");
                });
        assertThat(((AuditAvailability.Available) AuditDenialSource.probe()).enabled()).isZero();
    }

    /** A refused rename is a write on the directory (MGS2002), though its record lists fs.execute too. */
    @Test
    void a_refused_rename_is_a_write_not_an_exec() throws Exception {
        Path home = fixture.home();
        try (AuditDenialSource source = AuditDenialSource.open(new AuditOptions(true))) {
            Process child = spawnConfined("mv " + home.resolve("tool.sh") + " " + home.resolve("tool2.sh"));
            List<Diagnostic> seen = Collections.synchronizedList(new ArrayList<>());
            source.track("rename", child.pid(), "", fixture.ws(), new PrefixConfirmer(home)).subscribe(seen::add);
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
            await(() -> !seen.isEmpty(), "the rename's denial");
            source.untrack("rename");
            assertThat(seen).allSatisfy(d -> {
                assertThat(d.code()).isEqualTo(Code.MGS2002);
                assertThat(d.operation()).isEqualTo(Operation.WRITE);
                assertThat(d.subject()).isEqualTo(home.toString());
            });
            assertThat(Files.exists(home.resolve("tool.sh"))).isTrue();
        }
    }

    /**
     * A burst of denials beyond the kernel's backlog: the kernel drops records and counts them,
     * and the run is told how many (MGS2014) instead of seeing a short list as complete. The
     * backlog is cut to 1 for the test (magus raises it when it switches audit on) and put back.
     */
    @Test
    void records_lost_in_a_burst_are_counted_and_said_in_the_run() throws Exception {
        Path creds = fixture.home().resolve(".aws/credentials");
        Path py = Path.of(Confinement.python().orElseThrow());
        try (AuditDenialSource source = AuditDenialSource.open(new AuditOptions(true));
             AuditNetlink control = AuditNetlink.open(false)) {
            int backlog = control.status().backlogLimit();
            control.setBacklogLimit(1);
            try {
                long lostBefore = control.status().lost();
                Process child = new ProcessBuilder(Confinement.command(fixture.ws(), List.of("rx:" + py.getParent()),
                        List.of(py.toString(), "-c", "import os\nfor i in range(20000):\n  try: os.open('" + creds
                                + "', os.O_RDONLY)\n  except OSError: pass")))
                        .directory(fixture.ws().toFile()).redirectErrorStream(true)
                        .redirectOutput(root.resolve("burst.txt").toFile()).start();
                List<Diagnostic> seen = Collections.synchronizedList(new ArrayList<>());
                CountDownLatch done = new CountDownLatch(1);
                source.track("burst", child.pid(), "", fixture.ws(), new PrefixConfirmer(fixture.home()))
                        .subscribe(seen::add, e -> done.countDown(), done::countDown);
                assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
                Thread.sleep(1_000);
                long lost = control.status().lost() - lostBefore;
                source.untrack("burst");
                assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
                Assumptions.assumeTrue(lost > 0, "the kernel kept up with 20000 denials at a backlog of 1: nothing lost");
                assertThat(seen).filteredOn(d -> d.code() == Code.MGS2014).singleElement().satisfies(d -> {
                    assertThat(Long.parseLong(d.details().get(DetailKey.LOST.key()))).isPositive();
                    assertThat(d.message()).contains("the kernel dropped " + d.details().get(DetailKey.LOST.key()));
                    assertThat(d.layer()).isEqualTo(Layer.KERNEL);
                });
                assertThat(seen).anySatisfy(d -> assertThat(d.subject()).isEqualTo(creds.toString()));
            } finally {
                control.setBacklogLimit(backlog);
            }
        }
    }

    @Test
    void one_source_per_process() {
        try (AuditDenialSource source = AuditDenialSource.open(new AuditOptions(true))) {
            assertThatThrownBy(() -> AuditDenialSource.open(new AuditOptions(true)))
                    .isInstanceOf(IllegalStateException.class);
        }
    }

}
