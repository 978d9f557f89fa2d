/** The kernel layer: ABI probe, ruleset compilation, the confined launcher, kernel denials. */
module dev.magus.landlock {
    requires transitive dev.magus.policy;
    requires transitive reactor.core;
    requires transitive org.reactivestreams; // reactor-core is an automatic module: its Publisher type is read from here
    requires com.sun.jna;

    exports dev.magus.landlock.abi;
    exports dev.magus.landlock.denials;
    exports dev.magus.landlock.denials.audit;
    exports dev.magus.landlock.denials.stream;
    exports dev.magus.landlock.launch;
    exports dev.magus.landlock.seccomp;
    exports dev.magus.landlock.supervise;
    // NetRules: the run's TCP rules, built by the orchestrator from the policy and the proxy's port.
    exports dev.magus.landlock.compile to dev.magus.orchestrator, dev.magus.cli, dev.magus.bench;
    // The native calls (Syscalls, Natives, errno): for magus's own modules, which check
    // capabilities, the process group and descriptors through them, and for the benchmarks.
    exports dev.magus.landlock.sys to dev.magus.orchestrator, dev.magus.cli, dev.magus.bench;
    // dev.magus.landlock.compile and dev.magus.landlock.denials.infer are internal.

    // JNA reads and writes the fields of Structure subclasses and proxies the Library interfaces.
    opens dev.magus.landlock.sys to com.sun.jna;

    provides dev.magus.policy.path.KernelLookup with dev.magus.landlock.sys.ProcFdLookup;
    provides dev.magus.policy.path.DirectoryReader with dev.magus.landlock.sys.GetdentsReader;
    provides dev.magus.policy.watch.ChangeWatcher with dev.magus.landlock.sys.FanotifyWatcher;
}
