package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.Host;
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
}
