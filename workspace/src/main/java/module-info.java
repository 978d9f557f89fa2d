/** magus.yaml ({@code config.Workspace}), projects and targets, spells, the control-file audit, the job store (SQLite) and the lease markers. */
module dev.magus.workspace {
    requires transitive dev.magus.policy;
    requires org.yaml.snakeyaml;
    requires java.sql;
    requires org.xerial.sqlitejdbc;

    exports dev.magus.workspace;
    exports dev.magus.workspace.audit;
    exports dev.magus.workspace.config;
    exports dev.magus.workspace.init;
    exports dev.magus.workspace.jobs;
    exports dev.magus.workspace.learn;
    exports dev.magus.workspace.lease;
    exports dev.magus.workspace.project;
    // The audit keeps what it takes here; magus quarantine lists and restores it.
    exports dev.magus.workspace.quarantine to dev.magus.orchestrator, dev.magus.cli;
    exports dev.magus.workspace.spell;
    exports dev.magus.workspace.trust;

    // The fast directory reader (landlock's getdents), when that module is present.
    uses dev.magus.policy.path.DirectoryReader;
    // The kernel's events of what changed during a run (landlock's fanotify), when present.
    uses dev.magus.policy.watch.ChangeWatcher;
    // Spells of programs embedding magus.
    uses dev.magus.workspace.spell.SpellProvider;
}
