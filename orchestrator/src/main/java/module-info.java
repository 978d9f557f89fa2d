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
    // The run's network proxy (dev.magus.orchestrator.network).
    requires reactor.netty.core;
    requires io.netty.buffer;
    requires io.netty.common;
    requires io.netty.transport;
    // The binding layer's archive extraction (tar and gzip; zip too, by the same reader).
    requires org.apache.commons.compress;
    // The binding layer's HTTP client.
    requires reactor.netty.http;
    requires io.netty.codec.http;

    exports dev.magus.orchestrator;
    exports dev.magus.orchestrator.run;
    // The binding layer: a Sandbox session for code that runs inside the JVM.
    exports dev.magus.orchestrator.binding;
    // The resolver seam (Orchestrator.Builder.resolver), and the proxy itself for the benchmark.
    exports dev.magus.orchestrator.network;
    // The stages one at a time: `magus policy`/`check` show a policy without running it (cli),
    // and the server checks a forwarded run's workspace against the client's mode. The chain's
    // own classes there are public only for Orchestrator.
    exports dev.magus.orchestrator.pipeline to dev.magus.cli, dev.magus.server;
    // The stray collection's /proc pass, for its benchmark (StraysScanCpuTime).
    exports dev.magus.orchestrator.orphans to dev.magus.bench;
    // How runs are contained, for `magus probe`, and a run's cgroup for its benchmark.
    exports dev.magus.orchestrator.contain to dev.magus.cli, dev.magus.bench;
    exports dev.magus.orchestrator.temp to dev.magus.cli, dev.magus.bench;
    // dev.magus.orchestrator.git is internal.
}
