package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.magus.cli.BinMagus.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/magus} end to end, as a person runs it: a separate process from a built checkout,
 * on a fake home, in a workspace whose magus.yaml asks for required.
 */
class MagusCliIT {
    static final String FAKE_GITHUB_TOKEN = "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKE0000";
    static Path magus;

    @TempDir
    Path root;
    Path home;
    Path ws;
    Map<String, String> env;

    @BeforeAll
    static void findMagus() {
        magus = BinMagus.find("bin/magus end-to-end tests");
    }

    @BeforeEach
    void setUp() throws IOException {
        home = Files.createDirectories(root.resolve("home")).toRealPath();
        ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        Path tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        env = BinMagus.env(home, tmp);
        env.put("XDG_CONFIG_HOME", home.resolve(".config").toString());
    }

    private Result magus(String... args) {
        return BinMagus.run(BinMagus.command(magus, ws, env, args), 120, "bin/magus " + List.of(args) + " ended");
    }

    @Test
    void exitsZeroAndPassesOutputThrough() {
        Result r = magus("run", "--", "sh", "-c", "echo to-stdout; echo to-stderr >&2");
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(r.out()).isEqualTo("to-stdout\n");
        assertThat(r.err()).contains("to-stderr\n");
    }

    @Test
    void exitsWithTheChildsOwnStatus() {
        Result r = magus("run", "--", "sh", "-c", "exit 1");
        assertThat(r.status()).as("%s", r).isEqualTo(1);
    }

    @Test
    void aBadSandboxValueIsRefusedWith125() {
        Result r = magus("run", "--sandbox=sometimes", "--", "sh", "-c", "touch spawned");
        assertThat(r.status()).as("%s", r).isEqualTo(125);
        assertThat(r.err()).contains("MGS2004");
        assertThat(ws.resolve("spawned")).doesNotExist();
    }

    @Test
    void aFlagWeakerThanTheFloorIsRefusedWithMgs2010() {
        env.put("MAGUS_SANDBOX", "required");
        Result r = magus("run", "--sandbox=best-effort", "--", "sh", "-c", "touch spawned");
        assertThat(r.status()).as("%s", r).isEqualTo(125);
        assertThat(r.err()).contains("MGS2010");
        assertThat(ws.resolve("spawned")).doesNotExist();
    }

    @Test
    void anExecOutsideEveryExecRuleIsRefusedWith126() throws IOException {
        Path dir = Files.createDirectories(home.resolve("Downloads"));
        Path payload = dir.resolve("payload");
        Files.writeString(payload, "#!/bin/sh\ntouch " + ws.resolve("spawned") + "\n");
        Files.setPosixFilePermissions(payload, PosixFilePermissions.fromString("rwx------"));
        Result r = magus("run", "--", payload.toString());
        assertThat(r.status()).as("%s", r).isEqualTo(126);
        assertThat(r.err()).contains("MGS2007").contains("~/Downloads/payload"); // the caller's $HOME is the home magus shows as ~
        assertThat(ws.resolve("spawned")).doesNotExist();
    }

    @Test
    void aPathThatCannotBeRunExitsWith126NotFoundWith127() throws IOException {
        Path plain = Files.writeString(ws.resolve("plain.sh"), "echo never\n");
        Files.createDirectories(ws.resolve("adir"));
        Result notExecutable = magus("run", "--", "./plain.sh");
        assertThat(notExecutable.status()).as("%s", notExecutable).isEqualTo(126);
        assertThat(notExecutable.err()).contains("not executable");
        assertThat(magus("run", "--", "./adir").status()).isEqualTo(126);
        assertThat(plain).exists();
    }

    @Test
    void theCommandsOwnOptionsNeedNoDoubleDashAndAUsageErrorIsARefusal() {
        Result r = magus("run", "ls", "-a", ws.toString());
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(r.out()).contains("magus.yaml");
        Result usage = magus("run", "--no-such-option", "true");
        assertThat(usage.status()).as("%s", usage).isEqualTo(125);
        assertThat(usage.err()).contains("Unknown option");
    }

    @Test
    void everyDiagnosticIsAlsoLoggedThroughSlf4jWhenAsked() throws IOException {
        Path credentials = Files.createDirectories(home.resolve(".aws")).resolve("credentials");
        Files.writeString(credentials, "x\n");
        Path logFile = root.resolve("magus.log");
        Result r = magus("run", "--log", logFile.toString(), "--", "cat", credentials.toString());
        assertThat(r.status()).as("%s", r).isEqualTo(1);
        String log = Files.readString(logFile);
        assertThat(log).contains("INFO magus.diagnostics - code=MGS2003 layer=policy");
        assertThat(log).contains("ERROR magus.diagnostics - code=MGS2001 layer=kernel op=read subject=" + credentials);
    }

    @Test
    void eventsOnStdoutAreNdjsonOnly() throws IOException {
        Result r = magus("run", "--events", "-", "--", "sh", "-c", "echo out; echo err >&2");
        assertThat(r.status()).as("%s", r).isZero();
        ObjectMapper json = new ObjectMapper();
        List<String> lines = r.out().lines().toList();
        assertThat(lines).isNotEmpty();
        for (String line : lines) {
            assertThat(json.readTree(line).get("v").asInt()).as(line).isEqualTo(1);
        }
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("\"line\":\"out\""));
    }

    @Test
    void anUnknownCommandExitsWith127() {
        Result r = magus("run", "--", "magus-it-no-such-command");
        assertThat(r.status()).as("%s", r).isEqualTo(127);
        assertThat(r.err()).contains("not found");
    }

    @Test
    void aChildKilledBySignalNExitsWith128PlusN() {
        assertThat(magus("run", "--", "sh", "-c", "kill -TERM $$").status()).isEqualTo(128 + 15);
        assertThat(magus("run", "--", "sh", "-c", "kill -KILL $$").status()).isEqualTo(128 + 9);
    }

    @Test
    void callersSecretsNeverReachTheChild() {
        env.put("GITHUB_TOKEN", FAKE_GITHUB_TOKEN);
        env.put("AWS_SECRET_ACCESS_KEY", "FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE");
        Result r = magus("run", "--", "env");
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(r.out()).doesNotContain("GITHUB_TOKEN").doesNotContain(FAKE_GITHUB_TOKEN)
                .doesNotContain("AWS_SECRET_ACCESS_KEY").contains("MAGUS_RUN_ID=").contains("MAGUS_SANDBOX=required");
        assertThat(r.err()).contains("MGS2003");
    }

    @Test
    void theEventsFileFollowsTheDocumentedSchema() throws IOException {
        Path credentials = Files.createDirectories(home.resolve(".aws")).resolve("credentials");
        Files.writeString(credentials, "[default]\naws_secret_access_key = FAKEFAKEFAKE\n");
        env.put("GITHUB_TOKEN", FAKE_GITHUB_TOKEN);
        Path file = root.resolve("events.ndjson");
        Result r = magus("run", "--events", file.toString(), "--", "sh", "-c", "echo hello; cat " + credentials + "; exit 2");
        assertThat(r.status()).as("%s", r).isEqualTo(2);
        assertThat(r.out()).doesNotContain("FAKEFAKEFAKE");

        ObjectMapper json = new ObjectMapper();
        List<JsonNode> events = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            events.add(json.readTree(line));
        }
        assertThat(events).isNotEmpty();
        String run = events.get(0).get("run").asText();
        for (JsonNode e : events) {
            assertThat(fieldNames(e).subList(0, 4)).as("%s", e).containsExactly("v", "type", "run", "at");
            assertThat(e.get("v").isInt()).isTrue();
            assertThat(e.get("v").asInt()).isEqualTo(1);
            assertThat(e.get("run").asText()).isEqualTo(run);
            Instant.parse(e.get("at").asText());
            switch (e.get("type").asText()) {
                case "started" -> {
                    assertThat(fieldNames(e).subList(4, fieldNames(e).size())).containsExactly("argv", "mode", "pid");
                    assertThat(e.get("argv").isArray()).isTrue();
                    assertThat(e.get("mode").asText()).isEqualTo("required");
                    assertThat(e.get("pid").isIntegralNumber()).isTrue();
                }
                case "output" -> {
                    assertThat(fieldNames(e).subList(4, fieldNames(e).size())).containsExactly("stream", "line");
                    assertThat(e.get("stream").asText()).isIn("stdout", "stderr");
                    assertThat(e.get("line").isTextual()).isTrue();
                }
                case "diagnostic" -> {
                    assertThat(fieldNames(e).subList(4, fieldNames(e).size()))
                            .containsExactly("code", "severity", "layer", "op", "subject", "source", "message", "details");
                    assertThat(e.get("code").asText()).matches("MGS[23]\\d{3}");
                    assertThat(e.get("severity").asText()).isIn("error", "warning", "info", "hint", "debug");
                    assertThat(e.get("layer").asText()).isIn("binding", "kernel", "policy");
                    assertThat(e.get("op").asText()).isIn("read", "write", "exec", "none");
                    assertThat(e.get("details").isObject()).isTrue();
                    e.get("details").forEach(v -> assertThat(v.isTextual()).isTrue());
                }
                case "exited" -> {
                    assertThat(fieldNames(e).subList(4, fieldNames(e).size())).containsExactly("status", "signal", "duration_ms");
                    assertThat(e.get("duration_ms").isIntegralNumber()).isTrue();
                }
                default -> throw new AssertionError("unknown type in " + e);
            }
        }
        assertThat(events.get(0).get("type").asText()).isEqualTo("started");
        JsonNode last = events.get(events.size() - 1);
        assertThat(last.get("type").asText()).isEqualTo("exited");
        assertThat(last.get("status").asInt()).isEqualTo(2);
        assertThat(last.get("signal").asInt()).isZero();
        assertThat(events).filteredOn(e -> e.get("type").asText().equals("output"))
                .anySatisfy(e -> assertThat(e.get("line").asText()).isEqualTo("hello"));
        assertThat(events).filteredOn(e -> e.get("type").asText().equals("diagnostic"))
                .extracting(e -> e.get("code").asText()).contains("MGS2003", "MGS2001");
        assertThat(Files.readString(file)).doesNotContain(FAKE_GITHUB_TOKEN).doesNotContain("FAKEFAKEFAKE\"");
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }

    @Test
    void aNestedMagusRunsInsideAConfinedChild() {
        Result r = magus("run", "--", magus.toString(), "run", "--", "sh", "-c",
                "echo nested:$MAGUS_SANDBOX; echo tmp:$TMPDIR");
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(r.out()).contains("nested:required");
        // The nested magus made its run's private temp dir inside the parent's.
        String tmp = r.out().lines().filter(l -> l.startsWith("tmp:")).findFirst().orElseThrow();
        assertThat(tmp).startsWith("tmp:" + env.get("TMPDIR") + "/magus-run-");
        assertThat(tmp.split("/magus-run-", -1)).hasSize(3);
    }

    @Test
    void aNestedMagusAskingForLessIsRefusedWithMgs2010() {
        Result r = magus("run", "--", magus.toString(), "run", "--sandbox=off", "--", "sh", "-c", "touch spawned");
        assertThat(r.status()).as("%s", r).isEqualTo(125);
        assertThat(r.err()).contains("MGS2010");
        assertThat(ws.resolve("spawned")).doesNotExist();
    }
}
