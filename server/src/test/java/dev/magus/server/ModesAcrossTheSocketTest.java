package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
        Fixture.Result off = f.forward(f.run(f.env, List.of("--sandbox=off"), "sh", "-c", "echo ${MAGUS_SANDBOX:-unset}"));
        assertThat(off.status()).as("%s", off.codes()).isZero();
        assertThat(off.codes()).doesNotContain("MGS2010");
        assertThat(off.lines()).contains("magus: unconfined (--sandbox=off)");
        Fixture.Result best = f.forward(f.run(f.env, List.of("--sandbox=best-effort"), "sh", "-c", "echo $MAGUS_SANDBOX"));
        assertThat(best.status()).isZero();
        assertThat(best.out()).isEqualTo("best-effort\n");
        assertThat(f.registry.find("magus.server.forwarded").tag("outcome", "refused").counter()).isNull();
    }

    @Test
    void aSandboxFlagOffBelowTheClientsOwnFloorIsMgs2010() throws Exception {
        f.yaml("sandbox:\n  mode: best-effort\n");
        Fixture.Result r = f.forward(f.run(floor("best-effort"), List.of("--sandbox=off"), "true"));
        assertThat(r.status()).isEqualTo(125);
        assertThat(r.codes()).containsExactly("MGS2010");
        assertThat(r.lines().get(0)).contains("--sandbox=off").contains("MAGUS_SANDBOX=best-effort");
        assertThat(f.registry.find("magus.server.forwarded").tag("outcome", "started").counter()).as("no run started").isNull();
        assertThat(f.registry.get("magus.server.forwarded").tag("outcome", "refused").counter().count()).isEqualTo(1.0);
    }

    @Test
    void aSandboxFlagWeakerThanTheClientsFloorIsMgs2010() throws Exception {
        f.yaml("sandbox:\n  mode: required\n");
        Fixture.Result r = f.forward(f.run(floor("required"), List.of("--sandbox=best-effort"), "true"));
        assertThat(r.status()).isEqualTo(125);
        assertThat(r.codes()).containsExactly("MGS2010");
    }

    @Test
    void aClientWhoseModeTheWorkspaceDoesNotMeetIsDeclined() throws Exception {
        f.yaml("sandbox:\n  mode: best-effort\n");
        Fixture.Result r = f.forward(f.run(floor("required"), List.of(), "true"));
        assertThat(r.outcome()).isInstanceOfSatisfying(Forwarding.Outcome.Declined.class, d -> {
            Frame.Declined frame = d.frame();
            assertThat(frame.clientMode()).isEqualTo("required");
            assertThat(frame.workspaceMode()).isEqualTo("best-effort");
        });
        Fixture.Result flag = f.forward(f.run(f.env, List.of("--sandbox=required"), "true"));
        assertThat(flag.outcome()).isInstanceOf(Forwarding.Outcome.Declined.class);
        assertThat(f.registry.get("magus.server.forwarded").tag("outcome", "declined").counter().count()).isEqualTo(2.0);
    }

    @Test
    void theRunGoesUnderTheWorkspacesMode() throws Exception {
        f.yaml("sandbox:\n  mode: best-effort\n");
        Fixture.Result plain = f.forward(f.run("sh", "-c", "echo $MAGUS_SANDBOX"));
        assertThat(plain.status()).isZero();
        assertThat(plain.out()).isEqualTo("best-effort\n");
        Fixture.Result withFloor = f.forward(f.run(floor("best-effort"), List.of("--sandbox=best-effort"), "true"));
        assertThat(withFloor.status()).isZero();
    }

    @Test
    void theModeRulesAndTheRunResolveTheWorkingDirectoryTheSameWay() throws Exception {
        // ws/lnk/.. is ws by spelling, and other (the link target's parent) as the kernel walks it.
        f.yaml("sandbox:\n  mode: off\n");
        Path other = java.nio.file.Files.createDirectories(root.resolve("other/deep")).getParent().toRealPath();
        java.nio.file.Files.writeString(other.resolve("magus.yaml"), "sandbox:\n  mode: best-effort\n");
        java.nio.file.Files.createSymbolicLink(f.workspace.resolve("lnk"), other.resolve("deep"));
        Fixture.Result r = f.forward(Fixture.words(f.env, f.workspace + "/lnk/..", List.of(), "sh", "-c",
                "pwd; echo $MAGUS_SANDBOX"));
        assertThat(r.status()).isZero();
        assertThat(r.out()).isEqualTo(other + "\nbest-effort\n");
    }
}
