package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.cli.BinMagus.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A nested {@code bin/magus} inside a leased, confined run: it cannot read the state dir (no run
 * is granted it), so it is held to the lease its parent hands it in {@code MAGUS_LEASE}, the
 * same or narrower, never wider.
 */
class LeaseNestedIT {
    static Path magus;

    @TempDir
    Path root;
    Path home;
    Path ws;
    Map<String, String> env;
    String job;

    @BeforeAll
    static void findMagus() {
        magus = BinMagus.find("leased nested magus tests");
    }

    @BeforeEach
    void setUp() throws IOException {
        home = Files.createDirectories(root.resolve("home")).toRealPath();
        ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        Files.createDirectories(ws.resolve("src"));
        Path tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        env = BinMagus.env(home, tmp);
        String parent = ok("job", "add", "--write", "**").out().strip();
        job = ok("job", "add", "--parent", parent, "--write", "src/**").out().strip();
        ok("lease", "acquire", job);
    }

    private Result magus(String... args) {
        return BinMagus.run(BinMagus.command(magus, ws, env, args), 120, "bin/magus " + List.of(args) + " ended");
    }

    private Result ok(String... args) {
        Result r = magus(args);
        assertThat(r.status()).as("%s", r).isZero();
        return r;
    }

    @Test
    void aNestedMagusIsHeldToTheSameLeaseAndNamesTheJob() {
        Result r = magus("run", "--", magus.toString(), "run", "--", "sh", "-c",
                "echo x > src/inner; echo x > README; echo inner-done");
        assertThat(r.out()).as("%s", r).contains("inner-done");
        assertThat(ws.resolve("src/inner")).exists();
        assertThat(ws.resolve("README")).doesNotExist();
        assertThat(r.err()).as("the nested magus reports the refusal, naming the job").contains("MGS2002").contains("job " + job);
    }

    @Test
    void aNestedCheckAnswersWithTheCarriedLease() {
        Result denied = magus("run", "--", magus.toString(), "check", "write", "README");
        assertThat(denied.status()).as("%s", denied).isEqualTo(1);
        assertThat(denied.out()).contains("MGS2002").contains("job " + job);
        Result allowed = magus("run", "--", magus.toString(), "check", "write", "src/new");
        assertThat(allowed.status()).as("%s", allowed).isZero();
    }

    @Test
    void aChildThatDropsOrWidensTheCarriedLeaseGainsNothing() {
        Result dropped = magus("run", "--", "sh", "-c", "env -u MAGUS_LEASE " + magus + " run -- sh -c 'echo x > README'");
        assertThat(dropped.status()).as("%s", dropped).isEqualTo(125);
        assertThat(dropped.err()).as("the marker it cannot read is not 'no lease'").contains("MGS2004");
        assertThat(ws.resolve("README")).doesNotExist();

        Result widened = magus("run", "--", "sh", "-c", "MAGUS_LEASE='job=" + job + "&checkout=" + ws + "&write=**' " + magus
                + " run -- sh -c 'echo x > README; echo widened-done'");
        assertThat(widened.out()).as("%s", widened).contains("widened-done");
        assertThat(ws.resolve("README")).as("the parent's Landlock domain still holds").doesNotExist();
    }

    @Test
    void theTrailHoldsTheOuterRun() throws IOException {
        magus("run", "--", magus.toString(), "run", "--", "sh", "-c", "echo x > README");
        String shown = ok("job", "show", job, "--json").out();
        assertThat(shown).contains("\"run_started\"").contains("\"run_ended\"");
    }

    /**
     * The nested magus cannot write the store, so the outer run writes the rows of its
     * refusals: confirmed by the outer run's own (equally narrowed) policy from the output that
     * passes through it, written once, and not shown a second time.
     */
    @Test
    void aNestedMagussRefusalGoesOnTheJobsTrailOnce() throws IOException {
        Result r = magus("run", "--", magus.toString(), "run", "--", "sh", "-c", "echo x > README; echo inner-done");
        assertThat(r.out()).as("%s", r).contains("inner-done");
        assertThat(r.err().lines().filter(l -> l.contains("MGS2002")).count()).as("shown once, by the nested magus: %s", r)
                .isEqualTo(1);
        String shown = ok("job", "show", job, "--json").out();
        assertThat(shown).contains("\"sandbox_denial\"").contains(ws.resolve("README").toString());
        assertThat(shown.split("\"sandbox_denial\"", -1)).as("one row: %s", shown).hasSize(2);
    }

    /**
     * Under a glob the kernel grants a whole directory for, the nested magus (no store) leaves
     * the lease audit to the outer run, whose audit spans the nested one: what the nested run's
     * child wrote outside the glob is put back once, on the job's trail, and the outer run fails.
     */
    @Test
    void whatANestedRunWritesOutsideAWiderGlobIsPutBackByTheOuterRun() throws IOException {
        Files.createDirectories(ws.resolve("docs"));
        ok("lease", "release");
        String parent = ok("job", "add", "--write", "**").out().strip();
        String docs = ok("job", "add", "--parent", parent, "--write", "docs/*.md").out().strip();
        ok("lease", "acquire", docs);
        Result r = magus("run", "--", magus.toString(), "run", "--", "sh", "-c",
                "echo c > docs/c.txt; echo b > docs/b.md; echo inner-done");
        assertThat(r.out()).as("%s", r).contains("inner-done");
        assertThat(r.status()).as("%s", r).isEqualTo(1);
        assertThat(ws.resolve("docs/c.txt")).doesNotExist();
        assertThat(ws.resolve("docs/b.md")).hasContent("b");
        assertThat(r.err().lines().filter(l -> l.contains("MGS2002") && l.contains("docs/c.txt")).count())
                .as("reported once, by the outer run: %s", r).isEqualTo(1);
        String shown = ok("job", "show", docs, "--json").out();
        assertThat(shown.split("\"sandbox_denial\"", -1)).as("one row: %s", shown).hasSize(2);
        assertThat(shown).contains(ws.resolve("docs/c.txt").toString());
    }
}
