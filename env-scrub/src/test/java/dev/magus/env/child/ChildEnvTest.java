package dev.magus.env.child;

import dev.magus.events.DetailKey;
import dev.magus.events.Mode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.env.Allowlist;
import dev.magus.env.overlay.Overlay;
import dev.magus.env.platform.Platform;
import dev.magus.env.proc.ProcAccess;
import dev.magus.env.scrub.Scrubber;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.Severity;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildEnvTest {
    private static final Map<String, String> POINTERS = Map.of(
            "MAGUS_PROC_SOCKET", "/run/user/fake/magus/proc.sock",
            "MAGUS_PROC_TOKEN", "run-FAKEFAKEFAKE",
            "MAGUS_SERVER_ADDRESS", "unix:/run/user/fake/magus/server.sock");
    /** The pointers with a token that is no run's (a person's own environment): each one withheld is a line. */
    private static final Map<String, String> OWN_POINTERS = Map.of(
            "MAGUS_PROC_SOCKET", "/run/user/fake/magus/proc.sock",
            "MAGUS_PROC_TOKEN", "FAKEFAKEFAKE",
            "MAGUS_SERVER_ADDRESS", "unix:/run/user/fake/magus/server.sock");

    @TempDir
    Path root;
    SandboxDirs dirs;

    @BeforeEach
    void dirs() {
        dirs = new SandboxDirs(root.resolve("run-tmp"), root.resolve("cache/magus"), root.resolve("state/magus"));
    }

    private ChildEnvironment sandboxed(Map<String, String> host, Allowlist passthrough, Overlay overlay, ProcAccess proc) {
        return ChildEnv.childEnv(host, ChildEnvRequest.sandboxed(Mode.BEST_EFFORT,
                Scrubber.of(Platform.LINUX, passthrough), dirs, overlay, proc));
    }

    private static Allowlist declared() {
        return Allowlist.parse(List.of("TF_PLUGIN_CACHE_DIR", "MISE_*", "GOFLAGS"), "magus.yaml:9:7 sandbox.env.passthrough");
    }

    @Test
    void aTwoHundredVariableEnvironmentKeepsOnlyTheBaselineAndTheDeclaredPassthrough() {
        Map<String, String> host = HostEnvironments.twoHundred();
        assertThat(host).hasSize(200);

        ChildEnvironment child = sandboxed(host, declared(), Overlay.empty(), ProcAccess.withhold());

        Set<String> expected = new TreeSet<>(HostEnvironments.BASELINE.keySet());
        expected.addAll(HostEnvironments.DECLARED.keySet());
        expected.addAll(List.of("TMPDIR", "MAGUS_SANDBOX", "MAGUS_CACHE_DIR", "MAGUS_STATE_DIR"));
        assertThat(child.variables().keySet()).containsExactlyElementsOf(expected);
        HostEnvironments.BASELINE.forEach((k, v) -> assertThat(child.variables()).containsEntry(k, v));
        HostEnvironments.DECLARED.forEach((k, v) -> assertThat(child.variables()).containsEntry(k, v));
        for (String secret : List.of("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "VAULT_TOKEN",
                "VAULT_ADDR", "NPM_TOKEN", "ANTHROPIC_API_KEY", "SSH_AUTH_SOCK", "GOOGLE_APPLICATION_CREDENTIALS")) {
            assertThat(child.variables()).doesNotContainKey(secret);
        }

        int keptFromHost = HostEnvironments.BASELINE.size() + HostEnvironments.DECLARED.size() + 1; // + TMPDIR, replaced
        assertThat(child.keptFromHost()).isEqualTo(keptFromHost);
        assertThat(child.dropped()).isEqualTo(200 - keptFromHost);
    }

    @Test
    void mgs2003CarriesTheExactCountAndTheNamesApartButNeverAValue() {
        Map<String, String> host = HostEnvironments.twoHundred();
        ChildEnvironment child = sandboxed(host, declared(), Overlay.empty(), ProcAccess.withhold());

        List<Diagnostic> notices = child.diagnostics(Code.MGS2003);
        assertThat(notices).hasSize(1);
        Diagnostic d = notices.get(0);
        int dropped = 200 - (HostEnvironments.BASELINE.size() + HostEnvironments.DECLARED.size() + 1);
        assertThat(d.severity()).isEqualTo(Severity.INFO);
        assertThat(d.layer()).isEqualTo(Layer.POLICY);
        assertThat(d.operation()).isEqualTo(Operation.NONE);
        assertThat(d.subject()).isEmpty();
        assertThat(d.details()).containsOnlyKeys("dropped", DetailKey.DROPPED_NAMES.key())
                .containsEntry("dropped", Integer.toString(dropped));
        assertThat(d.message()).contains(" " + dropped + " variables dropped");
        // The names, for `magus run -v`, in a detail of their own; the message keeps to the count.
        List<String> droppedNames = host.keySet().stream().filter(k -> !child.variables().containsKey(k)).sorted().toList();
        assertThat(d.details().get(DetailKey.DROPPED_NAMES.key()).split(",")).containsExactlyElementsOf(droppedNames);
        String everything = d.message() + d.details() + d.source();
        host.forEach((k, v) -> {
            if (!child.variables().containsKey(k)) {
                assertThat(d.message()).as("name of dropped " + k).doesNotContain(k);
                assertThat(everything).as("value of dropped " + k).doesNotContain(v);
            }
        });
    }

    @Test
    void nothingDroppedMeansNoMgs2003() {
        ChildEnvironment child = sandboxed(Map.of("PATH", "/usr/bin", "HOME", "/home/dev"), Allowlist.EMPTY,
                Overlay.empty(), ProcAccess.withhold());
        assertThat(child.dropped()).isZero();
        assertThat(child.diagnostics()).isEmpty();
    }

    @Test
    void tmpdirIsReplacedByThePrivateTempDir() {
        ChildEnvironment child = sandboxed(Map.of("TMPDIR", "/tmp", "PATH", "/usr/bin"), Allowlist.parse(List.of("TMPDIR"), "t"),
                Overlay.empty(), ProcAccess.withhold());
        assertThat(child.variables()).containsEntry("TMPDIR", dirs.privateTemp().toString());
        assertThat(child.dropped()).isZero();

        ChildEnvironment noHostTmp = sandboxed(Map.of("PATH", "/usr/bin"), Allowlist.EMPTY, Overlay.empty(), ProcAccess.withhold());
        assertThat(noHostTmp.variables()).containsEntry("TMPDIR", dirs.privateTemp().toString());
    }

    @Test
    void aTargetOverlayOfMagusSandboxOffLosesToTheFloor() {
        Overlay target = Overlay.empty()
                .set("MAGUS_SANDBOX", "off")
                .set("MAGUS_CACHE_DIR", "/elsewhere/cache")
                .unset("MAGUS_STATE_DIR")
                .set("TMPDIR", root.resolve("target-tmp").toString())
                .set("EXTRA", "from-target");
        ChildEnvironment child = ChildEnv.childEnv(Map.of("PATH", "/usr/bin", "MAGUS_SANDBOX", "off"),
                ChildEnvRequest.sandboxed(Mode.REQUIRED, Scrubber.of(Platform.LINUX, Allowlist.EMPTY), dirs, target,
                        ProcAccess.withhold()));
        assertThat(child.variables())
                .containsEntry("MAGUS_SANDBOX", "required")
                .containsEntry("MAGUS_CACHE_DIR", dirs.cacheDir().toString())
                .containsEntry("MAGUS_STATE_DIR", dirs.stateDir().toString())
                // TMPDIR is replaced with the run's private temp dir, whatever the target sets.
                .containsEntry("TMPDIR", dirs.privateTemp().toString())
                .containsEntry("EXTRA", "from-target");
    }

    @Test
    void theOverlayLiesOverTheScrubbedBaseNeverOverTheHost() {
        Overlay o = Overlay.empty().unset("HOME").set("FIXTURES_DIR", "/fake/fixtures");
        ChildEnvironment child = sandboxed(Map.of("HOME", "/home/dev", "PATH", "/usr/bin", "GITHUB_TOKEN", "ghp_FAKEFAKE"),
                Allowlist.EMPTY, o, ProcAccess.withhold());
        assertThat(child.variables()).doesNotContainKeys("HOME", "GITHUB_TOKEN")
                .containsEntry("FIXTURES_DIR", "/fake/fixtures")
                .containsEntry("PATH", "/usr/bin");
        assertThat(child.dropped()).isEqualTo(1);
    }

    @Test
    void modeOffLaysTheOverlayOverTheWholeProcessEnvironmentWithoutScrubOrFloor() {
        Map<String, String> host = new HashMap<>(HostEnvironments.twoHundred());
        Overlay o = Overlay.empty().set("EXTRA", "x").unset("TOOL_SETTING_000");
        ChildEnvironment child = ChildEnv.childEnv(host, ChildEnvRequest.off(o, ProcAccess.withhold()));

        Map<String, String> expected = new HashMap<>(host);
        expected.remove("TOOL_SETTING_000");
        expected.put("EXTRA", "x");
        assertThat(child.variables()).isEqualTo(expected);
        assertThat(child.variables()).containsEntry("GITHUB_TOKEN", HostEnvironments.SECRETS.get("GITHUB_TOKEN"))
                .containsEntry("TMPDIR", "/tmp")
                .doesNotContainKeys("MAGUS_SANDBOX", "MAGUS_CACHE_DIR", "MAGUS_STATE_DIR");
        assertThat(child.dropped()).isZero();
        assertThat(child.keptFromHost()).isEqualTo(200);
        assertThat(child.diagnostics()).isEmpty();
        assertThat(host).hasSize(200).doesNotContainKey("EXTRA");
    }

    @Test
    void procVariablesAreAbsentInModeOff() {
        Map<String, String> host = new HashMap<>(Map.of("PATH", "/usr/bin"));
        host.putAll(OWN_POINTERS);
        ChildEnvironment child = ChildEnv.childEnv(host, ChildEnvRequest.off(Overlay.empty(), ProcAccess.withhold()));
        assertThat(child.variables()).containsOnlyKeys("PATH");
        assertThat(child.diagnostics()).extracting(Diagnostic::code).containsOnly(Code.MGS2008);
        assertWithheldAllThree(child);
    }

    @Test
    void procVariablesAreAbsentUnderAPolicyEvenWhenPassthroughOrTheOverlayNamesThem() {
        Map<String, String> host = new HashMap<>(Map.of("PATH", "/usr/bin"));
        host.putAll(OWN_POINTERS);
        ChildEnvironment child = sandboxed(host, Allowlist.parse(List.of("MAGUS_*"), "magus.yaml"),
                Overlay.empty().set("MAGUS_SERVER_ADDRESS", "unix:/fake/forged.sock"), ProcAccess.withhold());
        assertThat(child.variables()).doesNotContainKeys("MAGUS_PROC_SOCKET", "MAGUS_PROC_TOKEN", "MAGUS_SERVER_ADDRESS");
        assertWithheldAllThree(child);
        // The pointers are magus's own: never counted as dropped by the scrub.
        assertThat(child.diagnostics(Code.MGS2003)).isEmpty();
    }

    private static void assertWithheldAllThree(ChildEnvironment child) {
        List<Diagnostic> proc = child.diagnostics(Code.MGS2008);
        assertThat(proc).extracting(Diagnostic::subject)
                .containsExactly("MAGUS_PROC_SOCKET", "MAGUS_PROC_TOKEN", "MAGUS_SERVER_ADDRESS");
        assertThat(proc).allSatisfy(d -> {
            assertThat(d.severity()).isEqualTo(Severity.DEBUG);
            assertThat(d.details()).containsEntry("action", "withheld");
            POINTERS.values().forEach(v -> assertThat(d.message() + d.details()).doesNotContain(v));
        });
    }

    @Test
    void procVariablesArePresentForARecursiveMagusInEveryMode() {
        Map<String, String> host = new HashMap<>(Map.of("PATH", "/usr/bin"));
        host.putAll(POINTERS);
        Overlay forged = Overlay.empty().set("MAGUS_PROC_TOKEN", "forged-by-target");
        ProcAccess recursive = ProcAccess.forCommand(true, host);
        for (ChildEnvironment child : List.of(
                ChildEnv.childEnv(host, ChildEnvRequest.off(forged, recursive)),
                sandboxed(host, Allowlist.EMPTY, forged, recursive))) {
            assertThat(child.variables()).containsAllEntriesOf(POINTERS);
            assertThat(child.diagnostics(Code.MGS2008)).extracting(d -> d.subject() + ":" + d.details().get("action"))
                    .containsExactly("MAGUS_PROC_SOCKET:re-injected", "MAGUS_PROC_TOKEN:re-injected",
                            "MAGUS_SERVER_ADDRESS:re-injected");
        }
    }

    @Test
    void diagnosticsComeInStageOrder() {
        Map<String, String> host = new HashMap<>(Map.of(
                "PATH", "/home/dev/.local/share/mise/shims:/usr/bin", "MISE_DATA_DIR", "/home/dev/.local/share/mise",
                "GITHUB_TOKEN", "ghp_FAKEFAKE"));
        host.put("MAGUS_PROC_TOKEN", "FAKEFAKEFAKE");
        ChildEnvironment child = sandboxed(host, Allowlist.EMPTY, Overlay.empty(), ProcAccess.withhold());
        assertThat(child.diagnostics()).extracting(Diagnostic::code).containsExactly(Code.MGS2003, Code.MGS2006, Code.MGS2008);
        assertThat(child.dropped()).isEqualTo(2);
        assertThat(child.diagnostics()).allSatisfy(d -> {
            assertThat(d.layer()).isEqualTo(Layer.POLICY);
            assertThat(d.operation()).isEqualTo(Operation.NONE);
        });
    }

    @Test
    void envpIsSortedNameEqualsValue() {
        ChildEnvironment child = ChildEnv.childEnv(Map.of("B", "2", "A", "1=1"),
                ChildEnvRequest.of(Mode.OFF, Scrubber.of(Platform.LINUX, Allowlist.EMPTY), dirs, Overlay.empty(),
                        ProcAccess.withhold()));
        assertThat(child.envp()).containsExactly("A=1=1", "B=2");
        assertThat(child.get("A")).contains("1=1");
        assertThat(child.get("C")).isEmpty();
    }

    @Test
    void ofPicksTheRequestByMode() {
        Scrubber s = Scrubber.of(Platform.LINUX, Allowlist.EMPTY);
        assertThat(ChildEnvRequest.of(Mode.OFF, s, dirs, Overlay.empty(), ProcAccess.withhold()))
                .isInstanceOf(ChildEnvRequest.Off.class);
        assertThat(ChildEnvRequest.of(Mode.REQUIRED, s, dirs, Overlay.empty(), ProcAccess.withhold()))
                .isInstanceOfSatisfying(ChildEnvRequest.Sandboxed.class, r -> assertThat(r.mode()).isEqualTo(Mode.REQUIRED));
        assertThat(Mode.parse("best-effort", "test")).isEqualTo(Mode.BEST_EFFORT);
        assertThat(new HashSet<>(List.of(Mode.values()))).extracting(Mode::spelling)
                .containsExactlyInAnyOrder("off", "best-effort", "required");
    }
}
