package dev.magus.orchestrator.pipeline;

import dev.magus.events.Mode;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.HostDirs;
import dev.magus.policy.HostFacts;
import java.nio.file.Path;
import java.util.Optional;

/** The host a run needs before its policy: its private temp dir, and the host facts under it. */
final class HostStage {
    private HostStage() {
    }

    /** The run's private temp dir (0700): none in mode off. Acquires it: the caller owns it at once. */
    static Optional<Path> privateTemp(RunConfig config, Host host) {
        return config.mode() != Mode.OFF ? Optional.of(HostDirs.createPrivateTemp(host)) : Optional.empty();
    }

    /** The stage: the host facts under the run's temp dir; a sandboxed run's cache dirs exist afterwards (MGS2004 if they cannot). */
    static RunPlan facts(RunConfig config, Optional<Path> privateTemp, Host host) {
        HostFacts facts = host.facts(privateTemp.orElse(host.tempBase()));
        if (privateTemp.isPresent()) {
            HostDirs.createCacheDir(facts.magusCacheDir(), host.env());
            SpellCaches.prepare(config, facts);
        }
        return RunPlan.of(config, privateTemp, facts);
    }
}
