package dev.magus.env.proc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcSocketTest {
    private static final Map<String, String> POINTERS = Map.of(
            "MAGUS_PROC_SOCKET", "/run/user/fake/magus/proc.sock",
            "MAGUS_PROC_TOKEN", "run-FAKEFAKEFAKE",
            "MAGUS_SERVER_ADDRESS", "unix:/run/user/fake/magus/server.sock");

    @Test
    void recursiveMagusIsTheLauncherItself(@TempDir Path dir) {
        Path launcher = dir.resolve("bin/magus");
        assertThat(ProcSocket.isRecursiveMagus(dir.resolve("bin/../bin/magus"), launcher)).isTrue();
        assertThat(ProcSocket.isRecursiveMagus(dir.resolve("bin/npm"), launcher)).isFalse();
    }

    @Test
    void withholdingNamesEachPointerAndNeverItsValue() {
        TreeMap<String, String> env = new TreeMap<>(POINTERS);
        env.put("MAGUS_PROC_TOKEN", "FAKEFAKEFAKE");
        env.put("PATH", "/usr/bin");
        ProcSocket.Outcome out = ProcSocket.apply(env, ProcAccess.withhold());
        assertThat(out.env()).containsOnlyKeys("PATH");
        assertThat(out.diagnostics()).extracting(Diagnostic::subject)
                .containsExactly("MAGUS_PROC_SOCKET", "MAGUS_PROC_TOKEN", "MAGUS_SERVER_ADDRESS");
        for (Diagnostic d : out.diagnostics()) {
            assertThat(d.code()).isEqualTo(Code.MGS2008);
            assertThat(d.details()).containsEntry("action", "withheld");
            POINTERS.values().forEach(v -> {
                assertThat(d.message()).doesNotContain(v);
                assertThat(d.details().values()).doesNotContain(v);
            });
        }
        assertThat(env).containsKeys("MAGUS_PROC_TOKEN");
    }

    @Test
    void aForwardedRunsOwnPointersAreWithheldWithoutALineAsTheSameRunWithoutAServerHasNone() {
        TreeMap<String, String> env = new TreeMap<>(POINTERS);
        ProcSocket.Outcome out = ProcSocket.apply(env, ProcAccess.withhold());
        assertThat(out.env()).isEmpty();
        assertThat(out.diagnostics()).extracting(Diagnostic::subject).containsExactly("MAGUS_PROC_SOCKET");
        env.put("MAGUS_PROC_TOKEN", "a-servers-own-token");
        assertThat(ProcSocket.apply(env, ProcAccess.withhold()).diagnostics()).extracting(Diagnostic::subject)
                .containsExactly("MAGUS_PROC_SOCKET", "MAGUS_PROC_TOKEN", "MAGUS_SERVER_ADDRESS");
    }

    @Test
    void nothingWithheldMeansNothingLogged() {
        assertThat(ProcSocket.apply(Map.of("PATH", "/usr/bin"), ProcAccess.withhold()).diagnostics()).isEmpty();
    }

    @Test
    void reinjectionOverridesWhatTheEnvironmentSaid() {
        Map<String, String> env = Map.of("MAGUS_PROC_TOKEN", "forged-by-target", "PATH", "/usr/bin");
        ProcSocket.Outcome out = ProcSocket.apply(env, ProcAccess.reinjectFrom(POINTERS));
        assertThat(out.env()).containsAllEntriesOf(POINTERS).containsEntry("PATH", "/usr/bin");
        assertThat(out.diagnostics()).allSatisfy(d -> assertThat(d.details()).containsEntry("action", "re-injected"));
        assertThat(out.diagnostics()).hasSize(3);
    }

    @Test
    void aPointerMagusDoesNotHoldIsWithheldEvenForARecursiveMagus() {
        Map<String, String> env = Map.of("MAGUS_PROC_TOKEN", "forged-by-target");
        ProcSocket.Outcome out = ProcSocket.apply(env,
                ProcAccess.reinjectFrom(Map.of("MAGUS_PROC_SOCKET", "/run/user/fake/magus/proc.sock")));
        assertThat(out.env()).containsOnlyKeys("MAGUS_PROC_SOCKET");
        assertThat(out.diagnostics()).extracting(d -> d.subject() + ":" + d.details().get("action"))
                .containsExactly("MAGUS_PROC_SOCKET:re-injected", "MAGUS_PROC_TOKEN:withheld");
    }

    @Test
    void onlyARunsTokenIsReinjectedNeverTheServersOwn() {
        Map<String, String> host = new TreeMap<>(POINTERS);
        host.put("MAGUS_PROC_TOKEN", "0123456789abcdef".repeat(4));
        ProcSocket.Outcome out = ProcSocket.apply(Map.of("MAGUS_PROC_TOKEN", "forged-by-target"), ProcAccess.reinjectFrom(host));
        assertThat(out.env()).doesNotContainKey("MAGUS_PROC_TOKEN").containsKey("MAGUS_SERVER_ADDRESS");
        assertThat(out.diagnostics()).extracting(d -> d.subject() + ":" + d.details().get("action"))
                .contains("MAGUS_PROC_TOKEN:withheld");
    }

    @Test
    void onlyPointersCanBeReinjected() {
        assertThatThrownBy(() -> new ProcAccess.Reinject(new TreeMap<>(Map.of("GITHUB_TOKEN", "x"))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(ProcAccess.forCommand(false, POINTERS)).isInstanceOf(ProcAccess.Withhold.class);
        assertThat(ProcAccess.forCommand(true, POINTERS)).isInstanceOfSatisfying(ProcAccess.Reinject.class,
                r -> assertThat(r.pointers()).isEqualTo(POINTERS));
    }
}
