package dev.magus.orchestrator.pipeline;

import dev.magus.events.MagusEnv;
import dev.magus.env.child.ChildEnv;
import dev.magus.env.child.ChildEnvRequest;
import dev.magus.env.child.ChildEnvironment;
import dev.magus.events.Mode;
import dev.magus.env.child.SandboxDirs;
import dev.magus.env.overlay.Overlay;
import dev.magus.env.platform.Platform;
import dev.magus.env.proc.ProcAccess;
import dev.magus.env.scrub.Scrubber;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.env.Allowlist;
import dev.magus.events.IoFailures;
import dev.magus.orchestrator.git.GitConfigSource;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.HostDirs;
import dev.magus.policy.lease.CarriedLease;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.policy.PolicyOrOff;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/** The child's environment, rebuilt from the allowlist with this run's overlay on top. */
public final class EnvStage {
    /** Where git finds its global config inside the sandbox; see {@code SafeGitConfig}. */
    public static final String GIT_CONFIG_GLOBAL = "GIT_CONFIG_GLOBAL";

    /** The child environment and what building it reported. */
    public record ChildEnvPlan(SortedMap<String, String> variables, int dropped, List<Diagnostic> diagnostics) {
        public ChildEnvPlan {
            variables = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(variables));
            diagnostics = List.copyOf(diagnostics);
        }

        /** This plan with {@code variables} in place of its own (the proxy's added, say). */
        public ChildEnvPlan withVariables(Map<String, String> variables) {
            return new ChildEnvPlan(new TreeMap<>(variables), dropped, diagnostics);
        }
    }

    private EnvStage() {
    }

    /**
     * The stage: the child's environment, rebuilt from the allowlist with the run's overlay on top;
     * a sandboxed run gets its safe git config in its private temp dir (MGS2004 when it cannot be
     * written: the run does not start without its files). Its diagnostics are the caller's to hold back.
     */
    static ChildEnvPlan childEnv(RunPlan plan, Host host, Optional<GitConfigSource> git) {
        Optional<Path> gitConfig = plan.privateTemp().map(temp -> writeGitConfig(temp, host, git));
        SandboxDirs dirs = new SandboxDirs(plan.tempDir(host), plan.facts().magusCacheDir(), host.stateDir().dir());
        ChildEnvPlan env = build(plan.config(), plan.policy(), host.env(), plan.overlay(), dirs, plan.recursive(), gitConfig);
        return quieted(env, host.stateDir().dir().resolve("seen"), plan.config().workspaceRoot(), plan.executable());
    }

    private static Path writeGitConfig(Path privateTemp, Host host, Optional<GitConfigSource> git) {
        String text = git.map(g -> g.rendered(host.home(), host.env(), Optional.of(host.stateDir().dir())))
                .orElse("");
        try {
            return Files.writeString(privateTemp.resolve("gitconfig"), text);
        } catch (IOException e) {
            // A full temp dir: the run cannot have its files, so it does not start.
            throw HostDirs.tempFailure(host, "cannot write the run's git config in its private temp dir " + privateTemp,
                    IoFailures.reason(e));
        }
    }

    /** {@code plan} with its diagnostics that have nothing new to say marked quiet ({@link Quieting}). */
    public static ChildEnvPlan quieted(ChildEnvPlan plan, Path seenDir, Path workspace, Path executable) {
        if (plan.diagnostics().isEmpty()) {
            return plan;
        }
        return new ChildEnvPlan(plan.variables(), plan.dropped(),
                Quieting.apply(plan.diagnostics(), seenDir, workspace, executable));
    }

    /** The request's env-set and env-unset as an overlay; a bad name is MGS2004 naming {@code --env}. */
    public static Overlay overlay(RunRequest request) {
        Overlay o = Overlay.empty();
        for (Map.Entry<String, String> e : request.envSet().entrySet()) {
            o = o.set(e.getKey(), e.getValue(), "--env " + Echo.cut(e.getKey()));
        }
        for (String name : request.envUnset()) {
            o = o.unset(name, "--unset " + Echo.cut(name));
        }
        return o;
    }

    /**
     * The PATH the command is looked up on: the overlay's when it sets one, else the host's
     * (PATH is in every baseline, so the scrub never changes it).
     */
    public static String lookupPath(Overlay overlay, Map<String, String> hostEnv) {
        return Optional.ofNullable(overlay.sets().get("PATH")).orElse(hostEnv.getOrDefault("PATH", "/usr/bin:/bin"));
    }

    /**
     * @param recursiveMagus whether the command resolves to magus's own launcher (the only
     *                       child that gets the proc-socket pointers back)
     * @param gitConfig      the run's safe git config file, for a sandboxed run
     */
    public static ChildEnvPlan build(RunConfig config, PolicyOrOff policy, Map<String, String> hostEnv,
            Overlay overlay, SandboxDirs dirs, boolean recursiveMagus, Optional<Path> gitConfig) {
        Mode mode = config.mode();
        Allowlist passthrough = policy.policy().map(p -> p.env()).orElse(Allowlist.EMPTY);
        ChildEnvRequest request = ChildEnvRequest.of(mode, Scrubber.of(Platform.current(), passthrough), dirs, overlay,
                ProcAccess.forCommand(recursiveMagus, hostEnv),
                // Only a sandboxed child is scrubbed, so only its hints need the spells' managers (YAML spells read).
                mode.sandboxed() ? config.spells().managers(config.spellNames()) : List.of());
        ChildEnvironment env = ChildEnv.childEnv(hostEnv, request);
        SortedMap<String, String> vars = new TreeMap<>(env.variables());
        vars.put(MagusEnv.RUN_ID, config.runId());
        if (mode != Mode.OFF) {
            // After the overlay, like the floor: a target can neither drop nor widen its lease.
            List<CarriedLease> leases = policy.policy().map(p -> p.leases().stream().map(CarriedLease::of).toList())
                    .orElse(List.of());
            if (leases.isEmpty()) {
                vars.remove(MagusEnv.LEASE);
            } else {
                vars.put(MagusEnv.LEASE, CarriedLease.encodeAll(leases));
            }
        }
        gitConfig.ifPresent(g -> vars.put(GIT_CONFIG_GLOBAL, g.toString()));
        return new ChildEnvPlan(vars, env.dropped(), env.diagnostics());
    }
}
