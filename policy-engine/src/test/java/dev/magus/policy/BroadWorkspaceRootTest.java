package dev.magus.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.policy.decl.MergedDecl;
import dev.magus.policy.fs.AccessMode;
import dev.magus.events.Mode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The workspace is granted rwx as a whole, so a run started in the home directory, above it,
 * or in a shared temp dir (no magus.yaml below) must not hand that whole tree over.
 */
class BroadWorkspaceRootTest {
    @TempDir
    Path tmp;

    private static void assertRefused(HostFacts facts, Path root, String why) {
        assertThatThrownBy(() -> new PolicyBuilder(facts).policy(Mode.REQUIRED, root, MergedDecl.EMPTY))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.code()).isEqualTo(Code.MGS2004);
                    assertThat(e.diagnostic().source()).isEqualTo("workspace root");
                    assertThat(e.diagnostic().message()).contains(why);
                });
    }

    @Test
    void homeAndItsAncestorsAreRefusedAsWorkspaceRoots() {
        FakeHost h = new FakeHost(tmp);
        assertRefused(h.facts(), h.home, "your home directory");
        assertRefused(h.facts(), h.home.getParent(), "an ancestor of your home directory");
        assertRefused(h.facts(), Path.of("/"), "an ancestor of your home directory");
    }

    @Test
    void theSharedTempDirAndItsAncestorsAreRefusedButAProjectInsideItIsNot() throws Exception {
        FakeHost h = new FakeHost(tmp);
        Path sharedTemp = Files.createDirectories(h.root.resolve("shared-tmp"));
        Path project = Files.createDirectories(sharedTemp.resolve("project"));
        HostFacts facts = h.facts(Map.of("TMPDIR", sharedTemp.toString()));
        assertRefused(facts, sharedTemp, "the shared temp dir");
        Policy p = new PolicyBuilder(facts).policy(Mode.REQUIRED, project, MergedDecl.EMPTY);
        assertThat(p.ruleset().granted(project)).isEqualTo(AccessMode.RWX);
        assertThat(p.ruleset().granted(sharedTemp.resolve("ssh-agent.sock"))).isEqualTo(AccessMode.NONE);
        // /tmp itself, /var and a link to /var/tmp: InMemoryHostPolicyTest, on a host that surely has them.
    }

    @Test
    void anInstallationEntryThatIsHomeGrantsNothingAndSaysWhy() {
        FakeHost h = new FakeHost(tmp);
        HostFacts facts = HostFacts.linux(Map.of("HOME", h.home.toString()), h.home, List.of(h.install, h.home), h.temp);
        Policy p = new PolicyBuilder(facts).policy(Mode.REQUIRED, h.ws, MergedDecl.EMPTY);
        assertThat(p.ruleset().granted(h.home.resolve(".bashrc"))).isEqualTo(AccessMode.NONE);
        assertThat(p.ruleset().granted(h.install)).isEqualTo(AccessMode.RX);
        assertThat(p.notes()).anySatisfy(n -> {
            assertThat(n.kind()).isEqualTo(PolicyNote.Kind.GRANTS_NOTHING);
            assertThat(n.why()).contains("never granted as a whole");
        });
    }
}
