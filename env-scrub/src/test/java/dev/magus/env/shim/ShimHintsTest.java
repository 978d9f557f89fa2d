package dev.magus.env.shim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Severity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ShimHintsTest {
    /** The hints for the managers the built-in spells know. */
    private static List<Diagnostic> hints(Map<String, String> host, Map<String, String> child) {
        return ShimHints.of(host, child, ShimManager.KNOWN);
    }
    private static final String HOME = "/home/dev";

    @Test
    void miseShimsWithMiseDataDirScrubbedNameTheMisePattern() {
        String path = HOME + "/.local/share/mise/shims:/usr/bin";
        Map<String, String> host = Map.of("PATH", path, "MISE_DATA_DIR", HOME + "/.local/share/mise", "MISE_SAFE", "1");
        List<Diagnostic> hints = hints(host, Map.of("PATH", path));
        assertThat(hints).hasSize(1);
        Diagnostic d = hints.get(0);
        assertThat(d.code()).isEqualTo(Code.MGS2006);
        assertThat(d.severity()).isEqualTo(Severity.HINT);
        assertThat(d.subject()).isEqualTo("MISE_DATA_DIR");
        assertThat(d.message()).contains("MISE_DATA_DIR, MISE_SAFE were scrubbed")
                .contains("add to sandbox.env.passthrough: [\"MISE_*\"]");
        assertThat(d.details()).containsEntry("yaml", "sandbox:\n  env:\n    passthrough: [\"MISE_*\"]\n")
                .containsEntry("manager", "mise")
                .containsEntry("shimDir", HOME + "/.local/share/mise/shims");
        assertThat(d.message() + d.details()).doesNotContain(HOME + "/.local/share/mise:");
    }

    @Test
    void anyScrubbedMiseVariableIsEnough() {
        String path = HOME + "/.local/share/mise/shims/:/usr/bin";
        List<Diagnostic> hints = hints(Map.of("PATH", path, "MISE_ENV", "ci"), Map.of("PATH", path));
        assertThat(hints).singleElement().satisfies(d -> {
            assertThat(d.subject()).isEqualTo("MISE_ENV");
            assertThat(d.message()).contains("MISE_ENV was scrubbed");
        });
    }

    @Test
    void asdfShimsNameExactlyTheScrubbedVariables() {
        String path = "/usr/bin:" + HOME + "/.asdf/shims";
        Map<String, String> host = Map.of("PATH", path, "ASDF_DIR", HOME + "/.asdf", "ASDF_DATA_DIR", HOME + "/.asdf");
        List<Diagnostic> hints = hints(host, Map.of("PATH", path, "ASDF_DATA_DIR", HOME + "/.asdf"));
        assertThat(hints).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2006);
            assertThat(d.subject()).isEqualTo("ASDF_DIR");
            assertThat(d.message()).contains("ASDF_DIR was scrubbed").contains("passthrough: [ASDF_DIR]");
            assertThat(d.details()).containsEntry("scrubbed", "ASDF_DIR").containsEntry("manager", "asdf");
        });
    }

    @Test
    void aCustomDataDirShimIsRecognisedToo() {
        String path = "/opt/tools/asdf/shims:/usr/bin";
        Map<String, String> host = Map.of("PATH", path, "ASDF_DATA_DIR", "/opt/tools/asdf/");
        assertThat(hints(host, Map.of("PATH", path))).singleElement()
                .satisfies(d -> assertThat(d.details()).containsEntry("shimDir", "/opt/tools/asdf/shims"));
    }

    @Test
    void noHintWhenTheVariableWasPassedThroughOrNeverSet() {
        String path = HOME + "/.local/share/mise/shims:" + HOME + "/.asdf/shims:/usr/bin";
        Map<String, String> host = Map.of("PATH", path, "MISE_DATA_DIR", "/x", "ASDF_DIR", "/y");
        assertThat(hints(host, host)).isEmpty();
        assertThat(hints(Map.of("PATH", path), Map.of("PATH", path))).isEmpty();
    }

    @Test
    void noHintWithoutTheShimDirOnTheChildsPath() {
        Map<String, String> host = Map.of("PATH", HOME + "/.local/share/mise/shims:/usr/bin", "MISE_DATA_DIR", "/x",
                "ASDF_DIR", "/y");
        assertThat(hints(host, Map.of("PATH", "/usr/bin"))).isEmpty();
        assertThat(hints(host, Map.of())).isEmpty();
        assertThat(hints(Map.of("MISE_DATA_DIR", "/x"), Map.of("PATH", HOME + "/misc/mise/shimsx:/usr/bin")))
                .isEmpty();
    }

    @Test
    void direnvIsNotPartOfTheHeuristic() {
        String path = HOME + "/.local/share/direnv/shims:/usr/bin";
        Map<String, String> host = Map.of("PATH", path, "DIRENV_DIR", "-" + HOME + "/ws", "DIRENV_DIFF", "eJyFAKE");
        assertThat(hints(host, Map.of("PATH", path))).isEmpty();
    }

    @Test
    void bothManagersGiveOneHintEach() {
        String path = HOME + "/.local/share/mise/shims:" + HOME + "/.asdf/shims";
        Map<String, String> host = Map.of("PATH", path, "MISE_DATA_DIR", "/x", "ASDF_DIR", "/y");
        assertThat(hints(host, Map.of("PATH", path))).extracting(d -> d.details().get("manager"))
                .containsExactly("mise", "asdf");
    }

    @Test
    void pyenvShimsWithPyenvVersionScrubbedPointAtThePythonSpell() {
        String path = HOME + "/.pyenv/shims:/usr/bin";
        Map<String, String> host = Map.of("PATH", path, "PYENV_VERSION", "3.12.1", "PYENV_ROOT", HOME + "/.pyenv");
        assertThat(hints(host, Map.of("PATH", path, "PYENV_ROOT", HOME + "/.pyenv"))).singleElement().satisfies(d -> {
            assertThat(d.subject()).isEqualTo("PYENV_VERSION");
            assertThat(d.message()).contains("PYENV_VERSION was scrubbed").contains("passthrough: [PYENV_VERSION]")
                    .contains("bind the spell python")
                    // The passthrough alone silences the hint but leaves ~/.pyenv unreadable: said so.
                    .contains("and allow those installs rx yourself");
            assertThat(d.details()).containsEntry("manager", "pyenv").containsEntry("spell", "python");
        });
    }

    @Test
    void nvmBinDirAndSdkmanCandidatesAreShimsToo() {
        String path = HOME + "/.nvm/versions/node/v20.11.0/bin:/opt/sdk/candidates/java/current/bin:/usr/bin";
        Map<String, String> host = Map.of("PATH", path, "NVM_DIR", HOME + "/.nvm", "SDKMAN_DIR", "/opt/sdk");
        assertThat(hints(host, Map.of("PATH", path))).extracting(d -> d.details().get("manager") + " " + d.subject()
                + " " + d.details().get("shimDir"))
                .containsExactly("nvm NVM_DIR " + HOME + "/.nvm/versions/node/v20.11.0/bin",
                        "sdkman SDKMAN_DIR /opt/sdk/candidates/java/current/bin");
        // The versions directory itself is not a bin dir on PATH.
        assertThat(hints(Map.of("NVM_DIR", "/n"), Map.of("PATH", HOME + "/.nvm/versions/node"))).isEmpty();
    }

    @Test
    void aManagerAWorkspaceSpellKnowsIsCoveredOnlyWhenGiven() {
        ShimManager rbenv = new ShimManager("rbenv", List.of("/.rbenv/shims"), java.util.Optional.of("RBENV_ROOT"), "shims",
                List.of("RBENV_VERSION"), List.of(), java.util.Optional.of("ruby"));
        String path = HOME + "/.rbenv/shims:/usr/bin";
        Map<String, String> host = Map.of("PATH", path, "RBENV_VERSION", "3.3.0");
        assertThat(hints(host, Map.of("PATH", path))).isEmpty();
        assertThat(ShimHints.of(host, Map.of("PATH", path), List.of(rbenv))).singleElement()
                .satisfies(d -> assertThat(d.message()).contains("rbenv shims are on PATH").contains("bind the spell ruby"));
    }
}
