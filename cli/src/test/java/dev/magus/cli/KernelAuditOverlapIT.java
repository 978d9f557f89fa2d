package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.denials.audit.AuditAvailability;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two separate magus processes (two {@code bin/magus} JVMs, not two runs in one) with
 * overlapping {@code --kernel-audit} runs: the first starts first and ends first,
 * while the second is still running; the second's denial after that must still be logged, so
 * the first must not have switched audit off under it. Each run's denials are made silently
 * ({@code 2>/dev/null}), so only the audit records can report them, and each must see its own
 * and not the other's. At the end the audit switch is back where it was, unless a process
 * other than these two holds it.
 */
class KernelAuditOverlapIT {
    static Path magus;

    @TempDir
    Path root;

    @BeforeAll
    static void findMagus() {
        magus = BinMagus.find("kernel audit overlap test");
        String uid = System.getProperty("user.name");
        String why = "kernel audit overlap test skipped: needs root to switch audit and read its records (user "
                + uid + ")";
        if (!"root".equals(uid)) {
            System.err.println(why);
        }
        Assumptions.assumeTrue("root".equals(uid), why);
        AuditAvailability a = AuditDenialSource.probe();
        String no = "kernel audit overlap test skipped: " + a.describe();
        if (!(a instanceof AuditAvailability.Available)) {
            System.err.println(no);
        }
        Assumptions.assumeTrue(a instanceof AuditAvailability.Available, no);
    }

    @Test
    void the_first_run_to_end_leaves_audit_on_for_the_other_and_each_sees_its_own() throws Exception {
        int before = ((AuditAvailability.Available) AuditDenialSource.probe()).enabled();
        Path home = Files.createDirectories(root.resolve("home")).toRealPath();
        Path ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        Path tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        for (String f : List.of("a.txt", "b.txt", "b-late.txt")) {
            Files.writeString(home.resolve(f), "not for the run\n");
        }
        Map<String, String> env = BinMagus.env(home, tmp);
        Path aStarted = ws.resolve("a-started");
        Path bStarted = ws.resolve("b-started");
        Path aDone = ws.resolve("a-done");

        // A: denied once, then waits for B to be running, and ends.
        ProcessBuilder a = BinMagus.command(magus, ws, env, "run", "--kernel-audit", "--events", "a.ndjson", "--",
                "sh", "-c", "touch " + aStarted + "; cat " + home.resolve("a.txt") + " 2>/dev/null;"
                        + " while [ ! -e " + bStarted + " ]; do sleep 0.05; done; true");
        // B: started while A runs, denied once at once and once more after A's magus has exited.
        ProcessBuilder b = BinMagus.command(magus, ws, env, "run", "--kernel-audit", "--events", "b.ndjson", "--",
                "sh", "-c", "touch " + bStarted + "; cat " + home.resolve("b.txt") + " 2>/dev/null;"
                        + " while [ ! -e " + aDone + " ]; do sleep 0.05; done; sleep 1;"
                        + " cat " + home.resolve("b-late.txt") + " 2>/dev/null; true");

        CompletableFuture<BinMagus.Result> first = CompletableFuture.supplyAsync(
                () -> BinMagus.run(a, 120, "the first magus ended"));
        for (int i = 0; i < 1200 && !Files.exists(aStarted) && !first.isDone(); i++) {
            Thread.sleep(50);
        }
        assertThat(aStarted).as("the first run's child started").exists();
        CompletableFuture<BinMagus.Result> second = CompletableFuture.supplyAsync(
                () -> BinMagus.run(b, 120, "the second magus ended"));
        BinMagus.Result ra = first.join();
        assertThat(second).as("the second run is still running when the first magus has ended").isNotDone();
        Files.writeString(aDone, "");
        BinMagus.Result rb = second.join();
        assertThat(ra.status()).as("%s", ra).isZero();
        assertThat(rb.status()).as("%s", rb).isZero();

        String eventsA = Files.readString(ws.resolve("a.ndjson"));
        String eventsB = Files.readString(ws.resolve("b.ndjson"));
        assertThat(auditDenials(eventsA)).as("the first run's denials, from the audit records\n%s", eventsA)
                .containsExactly(home.resolve("a.txt").toString());
        assertThat(auditDenials(eventsB)).as("the second run's denials, from the audit records, the late one"
                        + " after the first magus ended\n%s", eventsB)
                .containsExactlyInAnyOrder(home.resolve("b.txt").toString(), home.resolve("b-late.txt").toString());

        List<String> others = otherHolders();
        if (others.isEmpty()) {
            int after = -1;
            for (int i = 0; i < 50; i++) {
                after = ((AuditAvailability.Available) AuditDenialSource.probe()).enabled();
                if (after == before) {
                    break;
                }
                Thread.sleep(100);
            }
            assertThat(after).as("the audit switch is put back by the last of the two").isEqualTo(before);
        } else {
            System.err.println("kernel audit overlap test: not checking that audit is put back: other processes"
                    + " hold the audit switch " + others);
        }
    }

    /** The subjects of the read denials reported from the audit records ({@code source} audit). */
    private static List<String> auditDenials(String ndjson) {
        return ndjson.lines()
                .filter(l -> l.contains("\"type\":\"diagnostic\"") && l.contains("\"layer\":\"kernel\"")
                        && l.contains("\"source\":\"audit\"") && l.contains("\"op\":\"read\""))
                .map(l -> l.replaceAll(".*\"subject\":\"([^\"]*)\".*", "$1"))
                .distinct()
                .toList();
    }

    /** The live holders of the host's audit switch other than this test's magus processes (both ended). */
    private static List<String> otherHolders() throws IOException {
        Path holders = dev.magus.landlock.denials.audit.AuditOptions.defaultShareDir().resolve("audit.holders");
        if (!Files.exists(holders)) {
            return List.of();
        }
        return Files.readAllLines(holders).stream().skip(1).filter(l -> !l.isBlank())
                .filter(l -> Files.exists(Path.of("/proc", l.split(" ")[0])))
                .toList();
    }
}
