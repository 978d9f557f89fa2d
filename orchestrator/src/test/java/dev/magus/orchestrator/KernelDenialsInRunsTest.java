package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.landlock.denials.audit.AuditAvailability;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import dev.magus.landlock.denials.audit.AuditOptions;
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
 * Kernel-layer denials through the product's own path: the launcher's confined child, the
 * run's real policy confirming each candidate, and (when this process may read them)
 * Landlock's audit records.
 */
class KernelDenialsInRunsTest {
    @TempDir
    Path root;
    TestHost t;
    Path secret;

    @BeforeEach
    void setUp() throws Exception {
        TestHost.assumeLandlock();
        t = new TestHost(root).mode("required");
        secret = Files.writeString(Files.createDirectories(t.home.resolve(".aws")).resolve("credentials"), "AKIAFAKEFAKEFAKE\n");
    }

    /** The kernel layer's diagnostics among {@code events}. */
    static List<Diagnostic> kernel(List<RunEvent> events) {
        return events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                .filter(d -> d.layer() == Layer.KERNEL).toList();
    }

    @Test
    void aPrintedDenialIsConfirmedByTheRunsPolicyAndAnAllowedFailureIsNot() throws Exception {
        Path locked = Files.writeString(t.workspace.resolve("locked"), "x");
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "cat " + secret + "; cat " + t.workspace.resolve("missing") + "; echo 'cat: " + locked
                        + ": Permission denied' >&2").build());
        List<Diagnostic> kernel = kernel(TestHost.events(run));
        // One for the credential; none for the missing file, nor for a line that names a path
        // the policy allows (the kernel could not have refused it).
        assertThat(kernel).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2001);
            assertThat(d.subject()).isEqualTo(secret.toString());
            assertThat(d.source()).isEqualTo("inferred:stderr");
            // A credential: called an attack, with nothing to paste.
            assertThat(d.details()).containsEntry("class", "attack").doesNotContainKey("allow_yaml");
        });
    }

    @Test
    void aDenialTheToolNeverPrintedIsReportedFromLandlocksAuditRecords() throws Exception {
        AuditAvailability a = AuditDenialSource.probe();
        String why = a instanceof AuditAvailability.Unavailable u ? u.reason() : "";
        if (!why.isEmpty()) {
            System.err.println("SKIP KernelDenialsInRunsTest: Landlock audit records cannot be read here: " + why);
        }
        Assumptions.assumeTrue(why.isEmpty(), "Landlock audit records cannot be read here: " + why);
        try (AuditDenialSource audit = AuditDenialSource.open(new AuditOptions(true));
                Orchestrator o = Orchestrator.builder(t.host()).audit(audit).build()) {
            Run run = o.submit(RunRequest.builder(t.workspace, "sh", "-c", "cat " + secret + " 2>/dev/null; true").build());
            List<Diagnostic> kernel = kernel(TestHost.events(run));
            assertThat(kernel).anySatisfy(d -> {
                assertThat(d.code()).isEqualTo(Code.MGS2001);
                assertThat(d.subject()).isEqualTo(secret.toString());
                assertThat(d.source()).isEqualTo("audit");
            });
        }
    }

    /**
     * Children that exit at once, several runs in flight: each denial, logged by the kernel
     * before magus may even have registered the child, is its own run's and no other's (the
     * domain's audit record names the launch thread's tag, no /proc lookup needed).
     */
    @Test
    void immediateExitsOfOverlappingRunsKeepTheirOwnAuditedDenials() throws Exception {
        AuditAvailability a = AuditDenialSource.probe();
        String why = a instanceof AuditAvailability.Unavailable u ? u.reason() : "";
        if (!why.isEmpty()) {
            System.err.println("SKIP KernelDenialsInRunsTest: Landlock audit records cannot be read here: " + why);
        }
        Assumptions.assumeTrue(why.isEmpty(), "Landlock audit records cannot be read here: " + why);
        int n = 4;
        List<Path> secrets = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            secrets.add(Files.writeString(t.home.resolve(".aws").resolve("key" + i), "AKIAFAKE" + i + "\n"));
        }
        try (AuditDenialSource audit = AuditDenialSource.open(new AuditOptions(true));
                Orchestrator o = Orchestrator.builder(t.host()).audit(audit).build()) {
            List<Run> runs = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {
                // The child becomes cat: refused and gone within a millisecond, printing nothing.
                runs.add(o.submit(RunRequest.builder(t.workspace, "sh", "-c",
                        "exec cat " + secrets.get(i) + " 2>/dev/null").build()));
            }
            for (int i = 0; i < n; i++) {
                List<Diagnostic> kernel = kernel(TestHost.events(runs.get(i)));
                assertThat(kernel).as("run %d", i).filteredOn(d -> d.source().equals("audit"))
                        .extracting(Diagnostic::subject).containsExactly(secrets.get(i).toString());
            }
        }
    }
}
