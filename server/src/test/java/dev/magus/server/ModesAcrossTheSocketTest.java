package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The specification's "Nested and forwarded runs only strengthen", across the socket. */
class ModesAcrossTheSocketTest {
    @TempDir
    Path root;
    Fixture f;

    @BeforeEach
    void start() throws Exception {
        f = new Fixture(root);
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private Map<String, String> floor(String mode) {
        Map<String, String> env = new LinkedHashMap<>(f.env);
        env.put("MAGUS_SANDBOX", mode);
        return env;
    }

    @Test
    void aTopLevelSandboxFlagBelowTheWorkspaceIsWhatItIsLocally() throws Exception {
        f.yaml("sandbox:\n  mode: required\n");
        Fixture.Result off = f.forward(f.submit(f.env, Map.of(), Optional.of("off"), "sh", "-c", "echo ${MAGUS_SANDBOX:-unset}"));
        assertThat(off.status()).as("%s", off.codes()).isZero();
        assertThat(off.codes()).doesNotContain("MGS2010");
        assertThat(off.events().get(0).path("mode").asText()).isEqualTo("off");
        Fixture.Result best = f.forward(f.submit(f.env, Map.of(), Optional.of("best-effort"), "sh", "-c", "echo $MAGUS_SANDBOX"));
        assertThat(best.status()).isZero();
        assertThat(best.out()).isEqualTo("best-effort\n");
        assertThat(f.registry.find("magus.server.forwarded").tag("outcome", "refused").counter()).isNull();
    }

    @Test
    void aSandboxFlagOffBelowTheClientsOwnFloorIsMgs2010() throws Exception {
        f.yaml("sandbox:\n  mode: best-effort\n");
        Fixture.Result r = f.forward(f.submit(floor("best-effort"), Map.of(), Optional.of("off"), "true"));
        assertThat(r.status()).isEqualTo(125);
        assertThat(r.codes()).containsExactly("MGS2010");
        assertThat(r.events().get(0).path("message").asText()).contains("--sandbox=off").contains("MAGUS_SANDBOX=best-effort");
        assertThat(r.types()).doesNotContain("started");
        assertThat(f.registry.get("magus.server.forwarded").tag("outcome", "refused").counter().count()).isEqualTo(1.0);
    }

    @Test
    void aSandboxFlagWeakerThanTheClientsFloorIsMgs2010() throws Exception {
        f.yaml("sandbox:\n  mode: required\n");
        Fixture.Result r = f.forward(f.submit(floor("required"), Map.of(), Optional.of("best-effort"), "true"));
        assertThat(r.status()).isEqualTo(125);
        assertThat(r.codes()).containsExactly("MGS2010");
    }

    @Test
    void aClientWhoseModeTheWorkspaceDoesNotMeetIsDeclined() throws Exception {
        f.yaml("sandbox:\n  mode: best-effort\n");
        Fixture.Result r = f.forward(f.submit(floor("required"), Map.of(), Optional.empty(), "true"));
        assertThat(r.outcome()).isInstanceOfSatisfying(Forwarding.Outcome.Declined.class, d -> {
            Frame.Declined frame = d.frame();
            assertThat(frame.clientMode()).isEqualTo("required");
            assertThat(frame.workspaceMode()).isEqualTo("best-effort");
        });
        Fixture.Result flag = f.forward(f.submit(f.env, Map.of(), Optional.of("required"), "true"));
        assertThat(flag.outcome()).isInstanceOf(Forwarding.Outcome.Declined.class);
        assertThat(f.registry.get("magus.server.forwarded").tag("outcome", "declined").counter().count()).isEqualTo(2.0);
    }

    @Test
    void theRunGoesUnderTheWorkspacesMode() throws Exception {
        f.yaml("sandbox:\n  mode: best-effort\n");
        Fixture.Result plain = f.forward(f.submit("sh", "-c", "echo $MAGUS_SANDBOX"));
        assertThat(plain.status()).isZero();
        assertThat(plain.out()).isEqualTo("best-effort\n");
        assertThat(plain.events().get(0).path("mode").asText()).isEqualTo("best-effort");
        Fixture.Result withFloor = f.forward(f.submit(floor("best-effort"), Map.of(), Optional.of("best-effort"), "true"));
        assertThat(withFloor.status()).isZero();
    }

    @Test
    void theModeRulesAndTheRunResolveTheWorkingDirectoryTheSameWay() throws Exception {
        // ws/lnk/.. is ws by spelling, and other (the link target's parent) as the kernel walks it.
        f.yaml("sandbox:\n  mode: off\n");
        Path other = java.nio.file.Files.createDirectories(root.resolve("other/deep")).getParent().toRealPath();
        java.nio.file.Files.writeString(other.resolve("magus.yaml"), "sandbox:\n  mode: best-effort\n");
        java.nio.file.Files.createSymbolicLink(f.workspace.resolve("lnk"), other.resolve("deep"));
        Frame.Submit s = f.submit("sh", "-c", "pwd; echo $MAGUS_SANDBOX");
        Frame.Submit viaLink = new Frame.Submit(s.argv(), f.workspace + "/lnk/..", s.env(), s.set(), s.unset(), s.sandbox(),
                s.stdin(), s.outputEvents(), s.allow(), s.pass(), s.allowHosts());
        Fixture.Result r = f.forward(viaLink);
        assertThat(r.status()).isZero();
        assertThat(r.out()).isEqualTo(other + "\nbest-effort\n");
    }
}
