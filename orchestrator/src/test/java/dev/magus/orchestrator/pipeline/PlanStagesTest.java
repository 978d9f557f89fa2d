package dev.magus.orchestrator.pipeline;

import dev.magus.orchestrator.TestHost;
import dev.magus.orchestrator.run.Host;

import dev.magus.orchestrator.temp.Trees;

import static dev.magus.orchestrator.TestHost.DEADLINE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.env.platform.Platform;
import dev.magus.events.Code;
import dev.magus.events.Mode;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.launch.Confinement;
import dev.magus.orchestrator.pipeline.RunPlan.Aimed;
import dev.magus.orchestrator.pipeline.RunPlan.Equipped;
import dev.magus.orchestrator.pipeline.RunPlan.Governed;
import dev.magus.orchestrator.pipeline.RunPlan.Premises;
import dev.magus.orchestrator.pipeline.EnvStage.ChildEnvPlan;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.policy.PolicyOrOff;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The stages that build a {@link RunPlan}, called directly, one at a time, on values the test
 * builds (no orchestrator, no spawn, no kernel): each returns its value, and each refusal comes
 * as the chain sees it, an error signal that carries its diagnostic's code (or its shell line)
 * and its exit status.
 */
class PlanStagesTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        t = new TestHost(root).mode("required");
    }

    private RunRequest request(String... argv) {
        return RunRequest.builder(t.workspace, argv).build();
    }

    /** {@code stage} as the chain runs it: refused with {@code code} and {@code status}, as an error signal. */
    private static void refused(Callable<?> stage, Code code, int status) {
        StepVerifier.create(PlanStages.mono(stage))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(Refusal.Diagnosed.class, r -> {
                    assertThat(r.diagnostic().code()).isEqualTo(code);
                    assertThat(r.status()).isEqualTo(status);
                }))
                .verify(DEADLINE);
    }

    private static <T> T value(Callable<T> stage) {
        return PlanStages.mono(stage).block(DEADLINE);
    }

    private Premises premises(RunRequest request) {
        RunConfig config = value(() -> PlanStages.config("plan-1", request, t.host()));
        return value(() -> PlanStages.premises(config, PlanStages.privateTemp(config, t.host()), t.host()));
    }

    private Governed governed(RunRequest request) {
        Premises p = premises(request);
        return new Governed(p, value(() -> PlanStages.policy(p)), Optional.empty());
    }

    @Test
    void configRefusesABadModeWithMgs2004() {
        t.mode("strict");
        refused(() -> PlanStages.config("plan-1", request("true"), t.host()), Code.MGS2004, 125);
    }

    @Test
    void configRefusesARequestWeakerThanTheFloorWithMgs2010() {
        t.env.put("MAGUS_SANDBOX", "required");
        RunRequest weaker = RunRequest.builder(t.workspace, "true").sandbox(Mode.BEST_EFFORT).build();
        refused(() -> PlanStages.config("plan-1", weaker, t.host()), Code.MGS2010, 125);
    }

    @Test
    void thePrivateTempDirIsMadeOnlyForASandboxedRunAndItsFailureIsMgs2004() throws IOException {
        RunConfig required = value(() -> PlanStages.config("plan-1", request("true"), t.host()));
        Optional<Path> temp = value(() -> PlanStages.privateTemp(required, t.host()));
        assertThat(temp).hasValueSatisfying(p -> assertThat(p).isDirectory().hasParent(t.tempBase));

        t.mode("off");
        RunConfig off = value(() -> PlanStages.config("plan-2", request("true"), t.host()));
        assertThat(value(() -> PlanStages.privateTemp(off, t.host()))).isEmpty();

        Path notADir = Files.writeString(root.resolve("a-file"), "x");
        Host full = new Host(t.env, t.home, TestHost.uid(), Platform.LINUX, List.of(), Optional.empty(), notADir);
        refused(() -> PlanStages.privateTemp(required, full), Code.MGS2004, 125);
    }

    @Test
    void premisesRefuseACacheDirThatCannotBeMadeWithMgs2004() throws IOException {
        Path file = Files.writeString(root.resolve("cache-is-a-file"), "x");
        t.env.put("XDG_CACHE_HOME", file.toString());
        RunConfig config = value(() -> PlanStages.config("plan-1", request("true"), t.host()));
        Optional<Path> temp = value(() -> PlanStages.privateTemp(config, t.host()));
        refused(() -> PlanStages.premises(config, temp, t.host()), Code.MGS2004, 125);
    }

    @Test
    void policyIsTheModesAndRefusesAMalformedGrantWithMgs2004() {
        Premises p = premises(request("true"));
        PolicyOrOff policy = value(() -> PlanStages.policy(p));
        assertThat(policy.policy()).hasValueSatisfying(x -> assertThat(x.mode()).isEqualTo(Mode.REQUIRED));

        Premises bad = premises(RunRequest.builder(t.workspace, "true").allow("out:rwz").build());
        refused(() -> PlanStages.policy(bad), Code.MGS2004, 125);
    }

    @Test
    void aimFindsTheCommandOnPathOrRefusesAsAShellWould() {
        Aimed sh = value(() -> PlanStages.aim(governed(request("sh")), request("sh"), t.host()));
        assertThat(sh.executable().getFileName()).hasToString("sh");
        assertThat(sh.recursive()).isFalse();

        StepVerifier.create(PlanStages.mono(() -> PlanStages.aim(governed(request("magus-test-no-such-command")),
                        request("magus-test-no-such-command"), t.host())))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(Refusal.Said.class, r -> {
                    assertThat(r.status()).isEqualTo(127);
                    assertThat(r.line()).isEqualTo("magus: magus-test-no-such-command: command not found");
                }))
                .verify(DEADLINE);
        StepVerifier.create(PlanStages.mono(() -> PlanStages.aim(governed(request("./")), request("./"), t.host())))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(Refusal.Said.class,
                        r -> assertThat(r.status()).isEqualTo(126)))
                .verify(DEADLINE);
    }

    @Test
    void aimRefusesABinaryOutsideEveryExecRuleWithMgs2007And126() {
        Path dropped = TestHost.script(t.home.resolve("Downloads"), "payload", "true");
        RunRequest request = request(dropped.toString());
        refused(() -> PlanStages.aim(governed(request), request, t.host()), Code.MGS2007, 126);
    }

    @Test
    void aimRefusesABadVariableNameInTheOverlayWithMgs2004() {
        RunRequest request = RunRequest.builder(t.workspace, "true").set("BAD=NAME", "x").build();
        refused(() -> PlanStages.aim(governed(request), request, t.host()), Code.MGS2004, 125);
    }

    @Test
    void childEnvCarriesTheRunsTempDirAndGitConfigAndReportsWhatItDropped() {
        t.env.put("MAGUS_TEST_DROPPED", "x");
        Aimed aimed = value(() -> PlanStages.aim(governed(request("sh")), request("sh"), t.host()));
        ChildEnvPlan env = value(() -> PlanStages.childEnv(aimed, t.host(), Optional.empty()));
        Path temp = aimed.governed().premises().privateTemp().orElseThrow();
        assertThat(env.variables()).containsEntry("TMPDIR", temp.toString())
                .containsEntry("GIT_CONFIG_GLOBAL", temp.resolve("gitconfig").toString())
                .containsEntry("MAGUS_RUN_ID", "plan-1")
                .doesNotContainKey("MAGUS_TEST_DROPPED");
        assertThat(env.diagnostics()).extracting(d -> d.code()).contains(Code.MGS2003);
        assertThat(temp.resolve("gitconfig")).isRegularFile();
    }

    @Test
    void childEnvRefusesWhenTheRunsGitConfigCannotBeWrittenWithMgs2004() {
        Aimed aimed = value(() -> PlanStages.aim(governed(request("sh")), request("sh"), t.host()));
        Trees.deleteQuietly(aimed.governed().premises().privateTemp().orElseThrow());
        refused(() -> PlanStages.childEnv(aimed, t.host(), Optional.empty()), Code.MGS2004, 125);
    }

    @Test
    void withoutNetworkModeProxyThereIsNoProxyAndTheEnvironmentIsUnchanged() {
        Aimed aimed = value(() -> PlanStages.aim(governed(request("sh")), request("sh"), t.host()));
        ChildEnvPlan env = value(() -> PlanStages.childEnv(aimed, t.host(), Optional.empty()));
        assertThat(PlanStages.proxy(aimed.governed().policy(), name -> List.of(), d -> { })).isEmpty();
        Equipped equipped = PlanStages.equip(aimed, env, OptionalInt.empty());
        assertThat(equipped.env()).isEqualTo(env);
        Equipped proxied = PlanStages.equip(aimed, env, OptionalInt.of(4711));
        assertThat(proxied.env().variables()).containsEntry("HTTPS_PROXY", "http://127.0.0.1:4711");
    }

    @Test
    void confinementRefusesRequiredBelowAbiThreeWithMgs2012AndWarnsBestEffortWithoutLandlock() {
        Aimed aimed = value(() -> PlanStages.aim(governed(request("sh")), request("sh"), t.host()));
        ChildEnvPlan env = value(() -> PlanStages.childEnv(aimed, t.host(), Optional.empty()));
        Equipped equipped = PlanStages.equip(aimed, env, OptionalInt.empty());
        refused(() -> PlanStages.confinement(equipped, LandlockProbe.fixed(2)), Code.MGS2012, 125);

        t.mode("best-effort");
        Aimed best = value(() -> PlanStages.aim(governed(request("sh")), request("sh"), t.host()));
        Equipped bestEquipped = PlanStages.equip(best,
                value(() -> PlanStages.childEnv(best, t.host(), Optional.empty())), OptionalInt.empty());
        try (Confinement none = value(() -> PlanStages.confinement(bestEquipped, LandlockProbe.fixed(0)))) {
            assertThat(none).isInstanceOf(Confinement.None.class);
            assertThat(none.warning()).hasValueSatisfying(w -> assertThat(w.code()).isEqualTo(Code.MGS2005));
        }
    }

    @Test
    void onlyASandboxExceptionBecomesARefusalAndMgs2007Is126() {
        StepVerifier.create(PlanStages.mono(() -> {
            throw new IllegalStateException("a bug");
        })).expectError(IllegalStateException.class).verify(DEADLINE);
        StepVerifier.create(Mono.error(PlanStages.signal(new dev.magus.events.SandboxException(
                dev.magus.events.Diagnostic.of(Code.MGS2007, "denied", "/x", dev.magus.events.Operation.EXEC,
                        dev.magus.events.Layer.POLICY, "test")))))
                .expectErrorSatisfies(e -> assertThat(((Refusal) e).status()).isEqualTo(126))
                .verify(DEADLINE);
    }
}
