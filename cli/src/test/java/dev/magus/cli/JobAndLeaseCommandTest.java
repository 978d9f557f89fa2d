package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.run.Host;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code magus job …} and {@code magus lease …} round trips, on a real store under a fake home. */
class JobAndLeaseCommandTest {
    @TempDir
    Path dir;
    Path ws;
    Host host;
    Path state;

    @BeforeEach
    void setUp() throws IOException {
        dir = dir.toRealPath();
        ws = Files.createDirectories(dir.resolve("ws"));
        state = dir.resolve("xdg-state");
        host = Cli.fakeHost(dir, Map.of("XDG_STATE_HOME", state.toString()));
    }

    private Cli.Result run(String... args) {
        // Main's own command line: options after a positional (show 2 --json) must still parse.
        return Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), args);
    }

    private Cli.Result ok(String... args) {
        Cli.Result r = run(args);
        assertThat(r.status()).as("%s\nstdout: %s\nstderr: %s", String.join(" ", args), r.out(), r.err()).isZero();
        assertThat(r.err()).isEmpty();
        return r;
    }

    @Test
    void addListShowEndRoundTrip() throws IOException {
        String root = ok("job", "add", "--write", "**").out().strip();
        String child = ok("job", "add", "--parent", root, "--write", "src/**", "docs/*.md").out().strip();
        assertThat(root).isEqualTo("1");
        assertThat(child).isEqualTo("2");
        assertThat(state.resolve("magus/jobs.db")).exists();

        String list = ok("job", "list").out();
        assertThat(list.lines()).first().asString().matches("ID\\s+PARENT\\s+STATE\\s+CREATED\\s+ENDED\\s+WRITE PATHS");
        assertThat(list.lines()).anySatisfy(l -> assertThat(l).matches("2\\s+1\\s+live\\s+\\S+Z\\s+-\\s+src/\\*\\* docs/\\*\\.md"));

        JsonNode jobs = new ObjectMapper().readTree(ok("job", "list", "--json").out());
        assertThat(jobs).hasSize(2);
        assertThat(jobs.get(0).get("parent").isNull()).isTrue();
        assertThat(jobs.get(1).get("parent").asLong()).isEqualTo(1);
        assertThat(jobs.get(1).get("state").asText()).isEqualTo("live");
        assertThat(jobs.get(1).get("write_paths").toString()).isEqualTo("[\"src/**\",\"docs/*.md\"]");

        assertThat(ok("job", "end", child, "--failed").out().strip()).isEqualTo("job 2 failed");
        JsonNode shown = new ObjectMapper().readTree(ok("job", "show", child, "--json").out());
        assertThat(shown.get("state").asText()).isEqualTo("failed");
        assertThat(shown.get("ended").asText()).endsWith("Z");
        assertThat(shown.get("trail").findValuesAsText("kind")).containsExactly("created", "ended");
        assertThat(shown.get("trail").get(1).get("state").asText()).isEqualTo("failed");

        String text = ok("job", "show", root).out();
        assertThat(text).contains("parent       none (a root job: never narrowed)").contains("trail").contains("created");
    }

    @Test
    void leaseAcquireAndReleaseWriteTheMarkerAndTheTrail() throws IOException {
        String root = ok("job", "add", "--write", "**").out().strip();
        String child = ok("job", "add", "--parent", root, "--write", "src/**").out().strip();

        assertThat(ok("lease", "acquire", child).out().strip()).isEqualTo(ws + " leased to job 2");
        Path checkouts = state.resolve("magus/checkouts");
        try (var dirs = Files.list(checkouts)) {
            Path cacheKeyed = dirs.findFirst().orElseThrow();
            try (var markers = Files.list(cacheKeyed)) {
                assertThat(markers).singleElement().satisfies(m -> assertThat(Files.readString(m)).contains("job=2"));
            }
        }
        JsonNode shown = new ObjectMapper().readTree(ok("job", "show", child, "--json").out());
        assertThat(shown.get("leases").get(0).asText()).isEqualTo(ws.toString());

        Cli.Result again = run("lease", "acquire", root, ".");
        assertThat(again.status()).isEqualTo(ExitCodes.REFUSED);
        assertThat(again.err()).contains("MGS2004").contains("already leased to job 2");

        assertThat(ok("lease", "release").out().strip()).isEqualTo(ws + " released from job 2");
        shown = new ObjectMapper().readTree(ok("job", "show", child, "--json").out());
        assertThat(shown.get("trail").findValuesAsText("kind")).containsExactly("created", "lease_acquired", "lease_released");
        assertThat(shown.get("leases")).isEmpty();
    }

    @Test
    void refusalsAreOneLineNamingTheFlagOrFileAnd125NeverAStackTrace() throws IOException {
        assertRefused(run("job", "show", "3"), "no job 3", "there is no job store yet");
        assertRefused(run("job", "add", "--write", "/etc/passwd"), "--write", "is absolute");
        assertRefused(run("job", "add", "--write", "../up"), "--write", "'..'");
        assertRefused(run("job", "add", "--parent", "x", "--write", "a"), "--parent must be a job id");
        assertRefused(run("job", "add", "--parent", "9", "--write", "a"), "no job 9");
        assertRefused(run("lease", "acquire", "1"), "no job 1");
        assertRefused(run("lease", "release"), "has no lease");
        ok("job", "add", "--write", "a");
        ok("job", "end", "1");
        assertRefused(run("job", "end", "1"), "already ended (done)");
        assertRefused(run("lease", "acquire", "1"), "only a live job can be leased");

        Files.writeString(state.resolve("magus/jobs.db"), "not a database at all".repeat(100));
        Files.deleteIfExists(state.resolve("magus/jobs.db-wal"));
        Files.deleteIfExists(state.resolve("magus/jobs.db-shm"));
        assertRefused(run("job", "list"), state.resolve("magus/jobs.db").toString(), "not a readable job store");
        assertRefused(run("job", "list", "--json"), "not a readable job store");
    }

    @Test
    void readingCommandsNeverCreateTheStoreAndAMissingSubcommandIsAUsageError() {
        assertThat(ok("job", "list").out()).startsWith("no jobs");
        assertThat(ok("job", "list", "--json").out().strip()).isEqualTo("[ ]");
        assertThat(state.resolve("magus/jobs.db")).doesNotExist();
        Cli.Result bare = run("job");
        assertThat(bare.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(bare.err()).contains("Missing required subcommand").contains("add");
        Cli.Result missing = run("job", "add");
        assertThat(missing.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(missing.err()).contains("--write");
    }

    private static void assertRefused(Cli.Result r, String... contains) {
        assertThat(r.status()).as(r.err()).isEqualTo(ExitCodes.REFUSED);
        assertThat(r.out()).isEmpty();
        assertThat(r.err().lines()).as(r.err()).singleElement().satisfies(l -> {
            assertThat(l).startsWith("magus: MGS2004 ");
            assertThat(l).contains(contains);
        });
    }

    @Test
    void aDelegatedJobOutsideItsParentsGlobsIsRefused() {
        String root = ok("job", "add", "--write", "src/**").out().strip();
        Cli.Result r = run("job", "add", "--parent", root, "--write", "src/main/**", "build/**");
        assertThat(r.status()).isEqualTo(125);
        assertThat(r.err()).contains("MGS2004").contains("'build/**' does not lie within the write paths of parent job 1 (src/**)");
        assertThat(ok("job", "add", "--parent", root, "--write", "src/main/**").out().strip()).isEqualTo("2");
    }

    @Test
    void aRunsRowsAreShownWithTheJob() throws IOException {
        String root = ok("job", "add", "--write", "**").out().strip();
        String child = ok("job", "add", "--parent", root, "--write", "src/**").out().strip();
        dev.magus.workspace.jobs.JobId id = dev.magus.workspace.jobs.JobId.parse(child).orElseThrow();
        try (dev.magus.workspace.jobs.JobStore store = dev.magus.workspace.jobs.JobStore.open(state.resolve("magus/jobs.db"))) {
            java.util.List.of(
                    new dev.magus.workspace.jobs.TrailEvent.RunStarted("run-7", ws, "make test"),
                    new dev.magus.workspace.jobs.TrailEvent.SandboxDenial(ws.resolve("README"), dev.magus.events.Operation.WRITE,
                            dev.magus.events.Code.MGS2002, dev.magus.events.Layer.KERNEL, java.util.Optional.of("run-7")),
                    new dev.magus.workspace.jobs.TrailEvent.RunEnded("run-7", 2, 0)).forEach(e -> store.record(id, e));
        }
        JsonNode trail = new ObjectMapper().readTree(ok("job", "show", child, "--json").out()).get("trail");
        assertThat(trail.findValuesAsText("kind")).containsExactly("created", "run_started", "sandbox_denial", "run_ended");
        assertThat(trail.get(1).get("run").asText()).isEqualTo("run-7");
        assertThat(trail.get(1).get("command").asText()).isEqualTo("make test");
        assertThat(trail.get(2).get("path").asText()).isEqualTo(ws.resolve("README").toString());
        assertThat(trail.get(2).get("run").asText()).isEqualTo("run-7");
        assertThat(trail.get(3).get("status").asInt()).isEqualTo(2);
        String text = ok("job", "show", child).out();
        assertThat(text).contains("run run-7 in " + ws + ": make test").contains("MGS2002 write " + ws.resolve("README"))
                .contains("run run-7 exit 2");
    }

    @Test
    void checkWriteAnswersExactlyWhatTheJobsGlobsAllowAndNamesTheJob() throws IOException {
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: best-effort\n");
        Files.createDirectories(ws.resolve("docs"));
        String root = ok("job", "add", "--write", "**").out().strip();
        String child = ok("job", "add", "--parent", root, "--write", "docs/*.md").out().strip();
        ok("lease", "acquire", child);
        assertThat(ok("check", "write", "docs/new.md").out()).contains("allowed: " + ws.resolve("docs/new.md"));
        Cli.Result txt = run("check", "write", "docs/new.txt");
        assertThat(txt.status()).as("%s %s", txt.out(), txt.err()).isEqualTo(1);
        assertThat(txt.out()).contains("MGS2002").contains("job " + child);
        Cli.Result readme = run("check", "write", "README");
        assertThat(readme.status()).isEqualTo(1);
        assertThat(readme.out()).contains("job " + child).doesNotContain("add to");
        ok("job", "end", child);
        assertThat(ok("check", "write", "README").out()).as("an ended job narrows nothing").contains("allowed");
    }

    @Test
    void policyShowsTheLeaseItsGlobsAndTheRulesItNarrowed() throws IOException {
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: best-effort\n");
        Files.createDirectories(ws.resolve("src"));
        String root = ok("job", "add", "--write", "**").out().strip();
        String child = ok("job", "add", "--parent", root, "--write", "src/**", "notes.md").out().strip();
        assertThat(ok("policy").out()).contains("lease: none");
        ok("lease", "acquire", child);
        JsonNode lease = new ObjectMapper().readTree(ok("policy", "--json").out()).get("leases").get(0);
        assertThat(lease.get("job").asText()).isEqualTo(child);
        assertThat(lease.get("checkout").asText()).isEqualTo(ws.toString());
        assertThat(lease.get("carried").asBoolean()).isFalse();
        assertThat(lease.get("write_paths").toString()).isEqualTo("[\"src/**\",\"notes.md\"]");
        assertThat(lease.get("globs").get(0).get("kernel").asText()).isEqualTo("exact");
        assertThat(lease.get("globs").get(0).get("rules").get(0).asText()).isEqualTo(ws.resolve("src").toString());
        assertThat(lease.get("globs").get(1).get("kernel").asText()).isEqualTo("narrower");
        assertThat(lease.get("narrowed")).anySatisfy(n -> {
            assertThat(n.get("path").asText()).isEqualTo(ws.toString());
            assertThat(n.get("bits_before").asText()).isEqualTo("rwx");
            assertThat(n.get("bits_after").asText()).isEqualTo("r-x");
        });
        String text = ok("policy").out();
        assertThat(text).contains("lease: job " + child + " on ").contains("write paths").contains("src/**")
                .contains("narrowed (the layers granted these; the lease took their write bit)");
    }
}
