/** JMH benchmarks and side-by-side comparisons, through the other modules' exported API. */
module dev.magus.bench {
    requires dev.magus.policy;
    requires dev.magus.env;
    requires dev.magus.landlock;
    requires dev.magus.workspace;
    requires jmh.core;
    requires java.management;
    requires jdk.management;
    // Nothing is exported: benchmarks.jar runs them (on the class path, shaded).
}
