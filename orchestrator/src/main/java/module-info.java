/** The core: Orchestrator, RunRequest/Run/RunResult, the run pipeline, the Spawner seam. */
module dev.magus.orchestrator {
    requires transitive dev.magus.events;
    requires transitive dev.magus.env;
    requires transitive dev.magus.policy;
    requires transitive dev.magus.landlock;
    requires transitive dev.magus.telemetry;
    requires transitive dev.magus.workspace;
    requires transitive reactor.core;
    requires transitive micrometer.core;

    exports dev.magus.orchestrator;
    exports dev.magus.orchestrator.run;
    // The stages one at a time: `magus policy`/`check` show a policy without running it (cli),
    // and the server checks a forwarded run's workspace against the client's mode.
    exports dev.magus.orchestrator.pipeline to dev.magus.cli, dev.magus.server;
    // dev.magus.orchestrator.git and dev.magus.orchestrator.orphans are internal.
}
