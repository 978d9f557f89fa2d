/** The child environment rebuilt from an allowlist, per-run overlays, proc-socket withholding. */
module dev.magus.env {
    requires transitive dev.magus.events;

    exports dev.magus.env;
    exports dev.magus.env.child;
    exports dev.magus.env.overlay;
    exports dev.magus.env.platform;
    exports dev.magus.env.proc;
    exports dev.magus.env.scrub;
    // The version managers MGS2006 knows, as data a spell names (ShimManager).
    exports dev.magus.env.shim;
}
