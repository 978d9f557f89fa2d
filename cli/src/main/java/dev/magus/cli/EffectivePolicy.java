package dev.magus.cli;

import dev.magus.events.MagusEnv;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.HostDirs;
import dev.magus.orchestrator.temp.Trees;
import dev.magus.workspace.config.WorkspaceConfig;
import dev.magus.orchestrator.pipeline.ConfigStage;
import dev.magus.orchestrator.pipeline.PolicyStage;
import dev.magus.orchestrator.pipeline.RunConfig;
import dev.magus.orchestrator.run.Grants;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.policy.PolicyOrOff;
import dev.magus.policy.fs.Rule;
import dev.magus.events.Mode;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The policy a {@code magus run} started in {@code cwd} would get, computed by the run
 * pipeline's own stages (ConfigStage, PolicyStage) so that {@code magus policy} and
 * {@code magus check} can never disagree with a run.
 *
 * <p>A run's private temp dir is part of its core footprint, and the policy builder skips
 * paths that do not exist; so one is created (0700, as a run does) for the build and deleted
 * right after. Its rule is shown as {@code <temp base>/magus-run-*}: every run gets a new one.
 *
 * @param config the resolved configuration (workspace root and file, mode)
 * @param source where the effective mode came from
 * @param policy the policy, or off
 */
record EffectivePolicy(RunConfig config, ModeSource source, PolicyOrOff policy) {

    /** The workspace's magus.yaml, when there is one. */
    Optional<Path> file() {
        return config.workspaceFile();
    }

    /** Where the effective mode came from. */
    enum ModeSource {
        FLAG("flag", "--sandbox"),
        FLOOR(MagusEnv.SANDBOX, MagusEnv.SANDBOX + " floor (a parent run or the caller's environment)"),
        WORKSPACE("magus.yaml", "sandbox.mode in magus.yaml"),
        DEFAULT("default", "default: no sandbox.mode declared");

        private final String key;
        private final String describe;

        ModeSource(String key, String describe) {
            this.key = key;
            this.describe = describe;
        }

        /** Stable spelling for JSON. */
        String key() {
            return key;
        }

        String describe() {
            return describe;
        }
    }

    static final String TEMP_PATTERN = Trees.PRIVATE_TEMP_PREFIX + "*";
    private static final String TEMP_ORIGIN = "core:temp";

    /**
     * @throws dev.magus.events.SandboxException MGS2004 (bad magus.yaml, flag or variable, no
     *         private temp dir) or
     *         MGS2010 (a flag weaker than the floor)
     */
    static EffectivePolicy of(Host host, Path cwd, Optional<Mode> flag) {
        return of(host, cwd, flag, Grants.NONE, Optional.empty(), Optional.empty());
    }

    /**
     * The policy of {@code magus run [--allow ..] [--pass ..] [--op SPELL] [--target NAME]} started
     * in {@code cwd}; the grants are shown as layer {@code cli}.
     */
    static EffectivePolicy of(Host host, Path cwd, Optional<Mode> flag, Grants grants, Optional<String> op,
            Optional<String> target) {
        RunRequest.Builder b = RunRequest.builder(cwd, target.isPresent() ? java.util.List.of() : java.util.List.of("magus"));
        flag.ifPresent(b::sandbox);
        grants.allow().forEach(b::allow);
        grants.pass().forEach(b::pass);
        op.ifPresent(b::op);
        target.ifPresent(b::target);
        RunConfig config = ConfigStage.resolve("inspect", b.build(), host.env(), host.home());
        ModeSource source = source(config, flag);
        if (config.mode() == Mode.OFF) {
            return new EffectivePolicy(config, source, PolicyOrOff.off());
        }
        Path temp = null;
        try {
            temp = HostDirs.createPrivateTemp(host);
            return new EffectivePolicy(config, source, PolicyStage.build(config, host.facts(temp)));
        } finally {
            if (temp != null) {
                // As a run's: what cannot be removed stays behind, and the answer still stands.
                Trees.deleteQuietly(temp);
            }
        }
    }

    /** The rule's path as shown: the per-run temp dir as a pattern, since the one built here is gone; under home as {@code ~/...} when {@code home} is given. */
    static String shownPath(Rule rule, Optional<Path> home) {
        boolean temp = rule.origin().equals(TEMP_ORIGIN) && rule.path().getParent() != null;
        Path p = temp ? rule.path().getParent() : rule.path();
        String shown = home.map(h -> dev.magus.policy.Locations.display(p, h)).orElse(p.toString());
        return temp ? shown + "/" + TEMP_PATTERN : shown;
    }

    private static ModeSource source(RunConfig config, Optional<Mode> flag) {
        if (flag.isPresent()) {
            return ModeSource.FLAG;
        }
        WorkspaceConfig ws = config.config();
        if (config.floor().filter(floor -> floor.compareTo(ws.mode()) > 0).isPresent()) {
            return ModeSource.FLOOR;
        }
        return ws.modeDeclared() ? ModeSource.WORKSPACE : ModeSource.DEFAULT;
    }
}
