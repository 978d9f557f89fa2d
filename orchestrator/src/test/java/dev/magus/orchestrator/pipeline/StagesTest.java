package dev.magus.orchestrator.pipeline;

import static dev.magus.orchestrator.TestHost.DEADLINE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.env.platform.Platform;
import dev.magus.events.Code;
import dev.magus.events.Mode;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.launch.Confinement;
import dev.magus.orchestrator.TestHost;
import dev.magus.orchestrator.network.NetworkProxy;
import dev.magus.orchestrator.pipeline.EnvStage.ChildEnvPlan;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.temp.Trees;
import dev.magus.policy.PolicyOrOff;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The stages that build a {@link RunPlan}, in {@link RunStages}' order, called directly, one at a
 * time, on values the test builds (no orchestrator, no spawn, no kernel): each returns its value, and each refusal comes
 * as the chain sees it, an error signal that carries its diagnostic's code (or its shell line)
 * and its exit status.
 */
class StagesTest {
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
        StepVerifier.create(mono(stage))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(Refusal.Diagnosed.class, r -> {
                    assertThat(r.diagnostic().code()).isEqualTo(code);
                    assertThat(r.status()).isEqualTo(status);
                }))
                .verify(DEADLINE);
    }

    /** {@code stage} as the chain runs it: its value, or its refusal as an error signal. */
    private static <T> Mono<T> mono(Callable<T> stage) {
        return Mono.fromCallable(stage).onErrorMap(Refusal::signal);
    }

    private static RunConfig config(String runId, RunRequest request, Host host) {
        return ConfigStage.resolve(runId, request, host.env(), host.home());
    }

    private static <T> T value(Callable<T> stage) {
        return mono(stage).block(DEADLINE);
    }

    private RunPlan premises(RunRequest request) {
        RunConfig config = value(() -> config("plan-1", request, t.host()));
        return value(() -> HostStage.facts(config, HostStage.privateTemp(config, t.host()), t.host()));
    }

    private RunPlan governed(RunRequest request) {
        RunPlan p = premises(request);
        return p.governed(value(() -> PolicyStage.build(p.config(), p.facts())), Optional.empty());
    }

    @Test
    void configRefusesABadModeWithMgs2004() {
        t.mode("strict");
        refused(() -> config("plan-1", request("true"), t.host()), Code.MGS2004, 125);
    }

    @Test
    void configRefusesARequestWeakerThanTheFloorWithMgs2010() {
        t.env.put("MAGUS_SANDBOX", "required");
        RunRequest weaker = RunRequest.builder(t.workspace, "true").sandbox(Mode.BEST_EFFORT).build();
        refused(() -> config("plan-1", weaker, t.host()), Code.MGS2010, 125);
    }

    @Test
    void thePrivateTempDirIsMadeOnlyForASandboxedRunAndItsFailureIsMgs2004() throws IOException {
        RunConfig required = value(() -> config("plan-1", request("true"), t.host()));
        Optional<Path> temp = value(() -> HostStage.privateTemp(required, t.host()));
        assertThat(temp).hasValueSatisfying(p -> assertThat(p).isDirectory().hasParent(t.tempBase));

        t.mode("off");
        RunConfig off = value(() -> config("plan-2", request("true"), t.host()));
        assertThat(value(() -> HostStage.privateTemp(off, t.host()))).isEmpty();

        Path notADir = Files.writeString(root.resolve("a-file"), "x");
        Host full = new Host(t.env, t.home, TestHost.uid(), Platform.LINUX, List.of(), Optional.empty(), notADir);
        refused(() -> HostStage.privateTemp(required, full), Code.MGS2004, 125);
    }

    @Test
    void premisesRefuseACacheDirThatCannotBeMadeWithMgs2004() throws IOException {
        Path file = Files.writeString(root.resolve("cache-is-a-file"), "x");
        t.env.put("XDG_CACHE_HOME", file.toString());
        RunConfig config = value(() -> config("plan-1", request("true"), t.host()));
        Optional<Path> temp = value(() -> HostStage.privateTemp(config, t.host()));
        refused(() -> HostStage.facts(config, temp, t.host()), Code.MGS2004, 125);
    }

    @Test
    void policyIsTheModesAndRefusesAMalformedGrantWithMgs2004() {
        RunPlan p = premises(request("true"));
        PolicyOrOff policy = value(() -> PolicyStage.build(p.config(), p.facts()));
        assertThat(policy.policy()).hasValueSatisfying(x -> assertThat(x.mode()).isEqualTo(Mode.REQUIRED));

        RunPlan bad = premises(RunRequest.builder(t.workspace, "true").allow("out:rwz").build());
        refused(() -> PolicyStage.build(bad.config(), bad.facts()), Code.MGS2004, 125);
    }

    @Test
    void aimFindsTheCommandOnPathOrRefusesAsAShellWould() {
        RunPlan sh = value(() -> ExecStage.aim(governed(request("sh")), request("sh"), t.host()));
        assertThat(sh.executable().getFileName()).hasToString("sh");
        assertThat(sh.recursive()).isFalse();

        StepVerifier.create(mono(() -> ExecStage.aim(governed(request("magus-test-no-such-command")),
                        request("magus-test-no-such-command"), t.host())))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(Refusal.Said.class, r -> {
                    assertThat(r.status()).isEqualTo(127);
                    assertThat(r.line()).isEqualTo("magus: magus-test-no-such-command: command not found");
                }))
                .verify(DEADLINE);
        StepVerifier.create(mono(() -> ExecStage.aim(governed(request("./")), request("./"), t.host())))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(Refusal.Said.class,
                        r -> assertThat(r.status()).isEqualTo(126)))
                .verify(DEADLINE);
    }

    @Test
    void aimRefusesABinaryOutsideEveryExecRuleWithMgs2007And126() {
        Path dropped = TestHost.script(t.home.resolve("Downloads"), "payload", "true");
        RunRequest request = request(dropped.toString());
        refused(() -> ExecStage.aim(governed(request), request, t.host()), Code.MGS2007, 126);
    }

    @Test
    void aimRefusesABadVariableNameInTheOverlayWithMgs2004() {
        RunRequest request = RunRequest.builder(t.workspace, "true").set("BAD=NAME", "x").build();
        refused(() -> ExecStage.aim(governed(request), request, t.host()), Code.MGS2004, 125);
    }

    @Test
    void childEnvCarriesTheRunsTempDirAndGitConfigAndReportsWhatItDropped() {
        t.env.put("MAGUS_TEST_DROPPED", "x");
        RunPlan aimed = value(() -> ExecStage.aim(governed(request("sh")), request("sh"), t.host()));
        ChildEnvPlan env = value(() -> EnvStage.childEnv(aimed, t.host(), Optional.empty()));
        Path temp = aimed.privateTemp().orElseThrow();
        assertThat(env.variables()).containsEntry("TMPDIR", temp.toString())
                .containsEntry("GIT_CONFIG_GLOBAL", temp.resolve("gitconfig").toString())
                .containsEntry("MAGUS_RUN_ID", "plan-1")
                .doesNotContainKey("MAGUS_TEST_DROPPED");
        assertThat(env.diagnostics()).extracting(d -> d.code()).contains(Code.MGS2003);
        assertThat(temp.resolve("gitconfig")).isRegularFile();
    }

    @Test
    void childEnvRefusesWhenTheRunsGitConfigCannotBeWrittenWithMgs2004() {
        RunPlan aimed = value(() -> ExecStage.aim(governed(request("sh")), request("sh"), t.host()));
        Trees.deleteQuietly(aimed.privateTemp().orElseThrow());
        refused(() -> EnvStage.childEnv(aimed, t.host(), Optional.empty()), Code.MGS2004, 125);
    }

    @Test
    void withoutNetworkModeProxyThereIsNoProxyAndTheEnvironmentIsUnchanged() {
        RunPlan aimed = value(() -> ExecStage.aim(governed(request("sh")), request("sh"), t.host()));
        ChildEnvPlan env = value(() -> EnvStage.childEnv(aimed, t.host(), Optional.empty()));
        assertThat(ProxyStage.start(aimed.policy(), t.services.proxyLoops(), name -> List.of(), d -> { })).isEmpty();
        assertThat(t.services.proxyLoops().started()).as("a run without network starts no event loop").isFalse();
        RunPlan equipped = ProxyStage.equip(aimed, env, OptionalInt.empty());
        assertThat(equipped.env()).isEqualTo(env);
        RunPlan proxied = ProxyStage.equip(aimed, env, OptionalInt.of(4711));
        assertThat(proxied.env().variables()).containsEntry("HTTPS_PROXY", "http://127.0.0.1:4711");
    }

    @Test
    void underNetworkModeProxyTheProxyListensOnItsOwnersLoopsWhichEndWithTheOwner() throws IOException {
        t.yaml("sandbox:\n  mode: required\n  network:\n    mode: proxy\n    allow: [repo.magus.test]\n");
        RunPlan aimed = value(() -> ExecStage.aim(governed(request("sh")), request("sh"), t.host()));
        Optional<NetworkProxy> proxy = ProxyStage.start(aimed.policy(), t.services.proxyLoops(), name -> List.of(), d -> { });
        EventLoopGroup loops;
        try {
            assertThat(proxy).isPresent();
            assertThat(t.services.proxyLoops().started()).as("made by the first proxied run").isTrue();
            loops = t.services.proxyLoops().group();
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.orElseThrow().port())) {
                assertThat(s.isConnected()).isTrue();
            }
        } finally {
            proxy.ifPresent(NetworkProxy::close);
        }
        t.services.close();
        assertThat(loops.terminationFuture().awaitUninterruptibly(10, TimeUnit.SECONDS)).as("ended with the services").isTrue();
    }

    @Test
    void confinementRefusesRequiredBelowAbiThreeWithMgs2012AndWarnsBestEffortWithoutLandlock() {
        RunPlan aimed = value(() -> ExecStage.aim(governed(request("sh")), request("sh"), t.host()));
        ChildEnvPlan env = value(() -> EnvStage.childEnv(aimed, t.host(), Optional.empty()));
        RunPlan equipped = ProxyStage.equip(aimed, env, OptionalInt.empty());
        refused(() -> ProbeStage.prepare(equipped.policy(), LandlockProbe.fixed(2), equipped.proxyPort()), Code.MGS2012, 125);

        t.mode("best-effort");
        RunPlan best = value(() -> ExecStage.aim(governed(request("sh")), request("sh"), t.host()));
        RunPlan bestEquipped = ProxyStage.equip(best,
                value(() -> EnvStage.childEnv(best, t.host(), Optional.empty())), OptionalInt.empty());
        try (Confinement none = value(() -> ProbeStage.prepare(bestEquipped.policy(), LandlockProbe.fixed(0), bestEquipped.proxyPort()))) {
            assertThat(none).isInstanceOf(Confinement.None.class);
            assertThat(none.warning()).hasValueSatisfying(w -> assertThat(w.code()).isEqualTo(Code.MGS2005));
        }
    }

    @Test
    void onlyASandboxExceptionBecomesARefusalAndMgs2007Is126() {
        StepVerifier.create(mono(() -> {
            throw new IllegalStateException("a bug");
        })).expectError(IllegalStateException.class).verify(DEADLINE);
        StepVerifier.create(Mono.error(Refusal.signal(new dev.magus.events.SandboxException(
                dev.magus.events.Diagnostic.of(Code.MGS2007, "denied", "/x", dev.magus.events.Operation.EXEC,
                        dev.magus.events.Layer.POLICY, "test")))))
                .expectErrorSatisfies(e -> assertThat(((Refusal) e).status()).isEqualTo(126))
                .verify(DEADLINE);
    }
}
