package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.run.Host;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyCommandTest {
    @TempDir
    Path dir;
    Path ws;
    Host host;

    @BeforeEach
    void workspace() throws IOException {
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        // A git dir as git lays it out (HEAD, objects, refs): only a real one is granted.
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.createDirectories(ws.resolve(".git/objects"));
        Files.createDirectories(ws.resolve(".git/refs/heads"));
        Files.writeString(ws.resolve(".git/HEAD"), "ref: refs/heads/main\n");
        host = Cli.fakeHost(dir, Map.of("GOCACHE", "off", "TOOL_HOME", dir.resolve("home").toString()));
        Files.createDirectories(host.home().resolve("tools"));
        Files.writeString(ws.resolve("magus.yaml"), """
                sandbox:
                  mode: required
                  allow:
                    - name: tools
                      path: ~/tools
                      mode: rx
                    - name: gocache
                      env: GOCACHE
                      mode: rwx
                    - name: toolhome
                      env: TOOL_HOME
                  env:
                    passthrough: [GOFLAGS, MISE_*]
                """);
        Cli.trust(host, ws.resolve("magus.yaml"));
    }

    private Cli.Result run(String... args) {
        return Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), args);
    }

    @Test
    void textShowsEachRuleWithItsOriginAndWhyDeclarationsGrantNothing() {
        Cli.Result r = run("policy");

        assertThat(r.status()).as(r.err()).isEqualTo(0);
        List<String> lines = r.out().lines().toList();
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("mode\\s+required \\(sandbox.mode in magus.yaml\\)"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("\\s+" + ws + "\\s+rwx\\s+core:workspace"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("\\s+" + ws + "/.git\\s+rw-\\s+core:git"));
        assertThat(lines).as("home shown as ~").anySatisfy(l -> assertThat(l).matches("\\s+~/tools\\s+r-x\\s+workspace:tools"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("\\s+" + host.tempBase() + "/magus-run-\\*\\s+rwx\\s+core:temp"));
        assertThat(lines).anySatisfy(l -> assertThat(l)
                .matches("\\s+workspace:gocache\\s+grants nothing: \\$GOCACHE=off is not an absolute path"));
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("workspace:toolhome")
                .contains("grants nothing").contains("home directory"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("\\s+passthrough\\s+GOFLAGS MISE_\\*"));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("  baseline").contains("HOME").contains("PATH"));
        assertThat(r.out()).contains(".git/hooks/").contains(".envrc").contains("magus.yaml,");
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("landlock\\s+ABI 7"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("unenforced\\s+nothing at this ABI"));
    }

    @Test
    void rulesAreAlignedInColumns() {
        List<String> rows = run("policy").out().lines()
                .dropWhile(l -> !l.startsWith("  PATH")).takeWhile(l -> !l.isEmpty()).toList();
        assertThat(rows).hasSizeGreaterThan(5);
        int bits = rows.get(0).indexOf("BITS");
        assertThat(rows).allSatisfy(l -> assertThat(l.charAt(bits - 1)).isEqualTo(' '));
        assertThat(rows.subList(1, rows.size())).allSatisfy(l -> assertThat(l.substring(bits, bits + 3)).matches("[r-][w-][x-]"));
    }

    @Test
    void jsonCarriesRulesWithOriginsNotesEnvControlFilesAndLandlock() throws IOException {
        Cli.Result r = run("policy", "--json");

        assertThat(r.status()).as(r.err()).isEqualTo(0);
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertThat(json.get("mode").asText()).isEqualTo("required");
        assertThat(json.get("mode_source").asText()).isEqualTo("magus.yaml");
        assertThat(json.get("workspace_root").asText()).isEqualTo(ws.toString());
        assertThat(json.get("workspace_file").asText()).isEqualTo(ws.resolve("magus.yaml").toString());
        assertThat(json.get("policy").asBoolean()).isTrue();
        List<String> rules = new ArrayList<>();
        json.get("rules").forEach(n -> rules.add(n.get("path").asText() + " " + n.get("bits").asText() + " " + n.get("origin").asText()));
        assertThat(rules).contains(ws + " rwx core:workspace", host.home().resolve("tools") + " r-x workspace:tools",
                "/etc r-- core:/etc", host.tempBase() + "/magus-run-* rwx core:temp");
        List<JsonNode> notes = new ArrayList<>();
        json.get("notes").forEach(notes::add);
        assertThat(notes).anySatisfy(n -> {
            assertThat(n.get("kind").asText()).isEqualTo("grants nothing");
            assertThat(n.get("origin").asText()).isEqualTo("workspace:gocache");
            assertThat(n.get("why").asText()).isEqualTo("$GOCACHE=off is not an absolute path");
        });
        assertThat(notes).anySatisfy(n -> {
            assertThat(n.get("origin").asText()).isEqualTo("workspace:toolhome");
            assertThat(n.get("why").asText()).contains("home directory");
        });
        assertThat(texts(json.get("env").get("baseline"))).contains("HOME", "PATH", "LC_*");
        assertThat(texts(json.get("env").get("passthrough"))).containsExactly("GOFLAGS", "MISE_*");
        assertThat(texts(json.get("env").get("set_by_magus"))).contains("TMPDIR", "MAGUS_SANDBOX", "MAGUS_RUN_ID");
        assertThat(texts(json.get("control_files"))).contains(".git/hooks/", "magus.yaml", ".envrc");
        assertThat(json.get("landlock").get("abi").asInt()).isEqualTo(7);
        assertThat(json.get("landlock").get("kernel_layer").asText()).isEqualTo("confine");
        assertThat(json.get("landlock").get("unenforced")).isEmpty();
    }

    @Test
    void aPlantedDotGitGrantsNothingAndThePolicySaysWhy() throws IOException {
        // What a confined child leaves for the next run: .git replaced by a link to home.
        try (Stream<Path> git = Files.walk(ws.resolve(".git"))) {
            git.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        Files.createSymbolicLink(ws.resolve(".git"), Path.of("../home"));
        Cli.Result r = run("policy");
        assertThat(r.status()).as(r.err()).isEqualTo(0);
        List<String> lines = r.out().lines().toList();
        assertThat(lines).noneSatisfy(l -> assertThat(l).contains("rw-").contains("core:git"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("\\s+core:git\\s+grants nothing: ~?.*\\.git is a symbolic link to ~,"
                + " out of the workspace or to nothing: a git dir is never reached through a link a run could have planted"));

        Files.delete(ws.resolve(".git"));
        Files.writeString(ws.resolve(".git"), "gitdir: /\n");
        JsonNode json = new ObjectMapper().readTree(run("policy", "--json").out());
        List<JsonNode> notes = new ArrayList<>();
        json.get("notes").forEach(notes::add);
        assertThat(notes).anySatisfy(n -> {
            assertThat(n.get("kind").asText()).isEqualTo("grants nothing");
            assertThat(n.get("origin").asText()).isEqualTo("core:git");
            assertThat(n.get("subject").asText()).isEqualTo(ws.resolve(".git").toString());
            assertThat(n.get("why").asText()).isEqualTo("/ is the home directory or an ancestor of it, which is never granted as a git dir");
        });
        List<String> origins = new ArrayList<>();
        json.get("rules").forEach(n -> origins.add(n.get("origin").asText()));
        assertThat(origins).doesNotContain("core:git");
    }

    @Test
    void theThrowawayPrivateTempDirIsGoneAfterwards() throws IOException {
        run("policy");
        try (Stream<Path> left = Files.list(host.tempBase())) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void requiredOnAnOldKernelShowsTheRefusalAndWhatIsUnenforced() throws IOException {
        Cli.Result r = Cli.run(Cli.context(host, ws, LandlockProbe.fixed(2)), "policy");
        assertThat(r.status()).isEqualTo(0);
        assertThat(r.out()).contains("refused before any child starts").contains("MGS2012").contains("truncate");

        JsonNode json = new ObjectMapper().readTree(Cli.run(Cli.context(host, ws, LandlockProbe.fixed(2)), "policy", "--json").out());
        assertThat(json.get("landlock").get("kernel_layer").asText()).isEqualTo("refuse");
        assertThat(json.get("landlock").get("diagnostic").asText()).startsWith("MGS2012");
        assertThat(texts(json.get("landlock").get("unenforced"))).contains("truncate");
    }

    @Test
    void modeSourceIsTheFlagOrTheFloorWhenTheyDecide() throws IOException {
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: best-effort\n");
        Cli.trust(host, ws.resolve("magus.yaml"));
        assertThat(run("policy", "--sandbox=required").out()).containsPattern("mode\\s+required \\(--sandbox\\)");

        Host floored = Cli.fakeHost(dir, Map.of("MAGUS_SANDBOX", "required"));
        Cli.Result r = Cli.run(Cli.context(floored, ws, LandlockProbe.fixed(7)), "policy", "--json");
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertThat(json.get("mode").asText()).isEqualTo("required");
        assertThat(json.get("mode_source").asText()).isEqualTo("MAGUS_SANDBOX");

        Cli.Result weaker = Cli.run(Cli.context(floored, ws, LandlockProbe.fixed(7)), "policy", "--sandbox=off");
        assertThat(weaker.status()).isEqualTo(125);
        assertThat(weaker.err()).contains("MGS2010");
    }

    @Test
    void modeOffHasNoPolicyAndStillSaysWhereTheModeCameFrom() throws IOException {
        Path plain = Files.createDirectories(dir.resolve("plain"));
        Cli.Result r = Cli.run(Cli.context(host, plain, LandlockProbe.fixed(7)), "policy");
        assertThat(r.status()).isEqualTo(0);
        assertThat(r.out()).containsPattern("mode\\s+off \\(default: no sandbox.mode declared\\)")
                .contains("no policy").contains("every check passes")
                .doesNotContain("core:workspace");

        Cli.Result flag = run("policy", "--sandbox=off", "--json");
        JsonNode json = new ObjectMapper().readTree(flag.out());
        assertThat(json.get("mode").asText()).isEqualTo("off");
        assertThat(json.get("mode_source").asText()).isEqualTo("flag");
        assertThat(json.get("policy").asBoolean()).isFalse();
        assertThat(json.has("rules")).isFalse();

        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: off\n");
        Cli.trust(host, ws.resolve("magus.yaml"));
        assertThat(run("policy").out()).containsPattern("mode\\s+off \\(sandbox.mode in magus.yaml\\)");
    }

    @Test
    void aBadMagusYamlPrintsItsMgs2004LineAndExits125() throws IOException {
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: bogus\n");
        Cli.trust(host, ws.resolve("magus.yaml"));
        Cli.Result r = run("policy");
        assertThat(r.status()).isEqualTo(125);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("magus: MGS2004 ").contains("bogus").contains("see 'magus explain MGS2004'");

        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n  allow:\n    - path: x\n      base: nowhere\n");
        Cli.trust(host, ws.resolve("magus.yaml"));
        Cli.Result decl = run("policy", "--json");
        assertThat(decl.status()).isEqualTo(125);
        assertThat(decl.err()).startsWith("magus: MGS2004 ");
    }

    @Test
    void controlCharactersFromMagusYamlOrTheEnvironmentAreShownNotSent() throws IOException {
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n  allow:\n    - path: \"~/t\\e[2Jools\"\n"
                + "    - env: GOCACHE\n");
        Cli.trust(host, ws.resolve("magus.yaml"));
        Files.createDirectories(host.home().resolve("t\u001b[2Jools"));
        host = host.withEnv(Map.of("HOME", host.home().toString(), "PATH", "/usr/bin:/bin", "GOCACHE", "\u001b]0;x\u0007"),
                host.home());
        Cli.Result r = run("policy");

        assertThat(r.status()).as(r.err()).isEqualTo(0);
        assertThat(r.out()).contains("~/t\\x1b[2Jools").contains("$GOCACHE=\\x1b]0;x\\x07")
                .doesNotContain("\u001b").doesNotContain("\u0007");
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    @Test
    void theNetworkPolicyShowsEachHostAndTheLayerThatGrantedIt() throws IOException {
        Files.writeString(ws.resolve("magus.yaml"), """
                sandbox:
                  mode: required
                  network:
                    mode: proxy
                    allow: ["*.example.org"]
                    ports: [5432]
                """);
        Cli.trust(host, ws.resolve("magus.yaml"));
        Cli.Result r = run("policy");
        assertThat(r.out()).contains("network proxy:").containsPattern("\\*\\.example\\.org\\s+workspace")
                .containsPattern("connect to port 5432\\s+workspace");
        com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(run("policy", "--json").out());
        assertThat(json.get("network").get("mode").asText()).isEqualTo("proxy");
        assertThat(json.get("network").get("allow").get(0).get("host").asText()).isEqualTo("*.example.org");
        assertThat(json.get("network").get("allow").get(0).get("origins").get(0).asText()).isEqualTo("workspace");
        assertThat(json.get("network").get("ports").get(0).get("port").asInt()).isEqualTo(5432);
    }

    @Test
    void withoutANetworkSectionThePolicySaysTheNetworkIsOpen() {
        assertThat(run("policy").out()).contains("network open: TCP is not confined");
    }
}
