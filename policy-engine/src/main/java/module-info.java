/** Modes, kernel-style path resolution, rules, control files, declarations; pure Java. */
module dev.magus.policy {
    requires transitive dev.magus.events;
    requires transitive dev.magus.env;

    exports dev.magus.policy;
    exports dev.magus.policy.control;
    exports dev.magus.policy.decl;
    exports dev.magus.policy.fs;
    exports dev.magus.policy.git;
    exports dev.magus.policy.lease;
    exports dev.magus.policy.net;
    exports dev.magus.policy.path;
    exports dev.magus.policy.trust;
    exports dev.magus.policy.watch;
    // The process's one Cleaner, for the modules that release what the collector finds unreachable.
    exports dev.magus.policy.cleaner to dev.magus.landlock, dev.magus.workspace, dev.magus.orchestrator;

    // The kernel's answers (landlock provides them), when a module that has them is present.
    uses dev.magus.policy.path.KernelLookup;
    // Its native lstat, to tell a missing path without the JDK's exceptions (RealFilesystem).
    uses dev.magus.policy.path.DirectoryReader;
}
