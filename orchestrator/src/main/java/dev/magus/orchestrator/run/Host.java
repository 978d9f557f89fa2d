package dev.magus.orchestrator.run;

import dev.magus.env.platform.Platform;
import dev.magus.policy.HostFacts;
import dev.magus.workspace.StateDir;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The machine magus runs on, as the orchestrator needs it: injected, so tests run a fake
 * home and environment and never the real ones.
 *
 * @param env          magus's own environment (the host's, not a child's)
 * @param home         the user's home
 * @param uid          the user id
 * @param os           which footprint applies
 * @param installation magus's installation: launcher, jars, native libraries, the JDK (granted rx)
 * @param launcher     {@code bin/magus}, when magus runs from it: a child that execs it is a
 *                     recursive magus
 * @param tempBase     where private temp dirs of runs are created (each 0700, removed after the run)
 */
public record Host(Map<String, String> env, Path home, long uid, Platform os, List<Path> installation,
        Optional<Path> launcher, Path tempBase) {

    public Host {
        env = Map.copyOf(env);
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(os, "os");
        installation = List.copyOf(installation);
        Objects.requireNonNull(launcher, "launcher");
        Objects.requireNonNull(tempBase, "tempBase");
    }

    /** This process's host, from its environment and the properties bin/magus sets. */
    public static Host fromSystem() {
        Path tempBase = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
        HostFacts facts = HostFacts.fromSystem(tempBase);
        // bin/magus names itself as it was called (it runs no subprocess to resolve links): resolved
        // here, since a recursive magus is recognised by its resolved path.
        Optional<Path> launcher = Optional.ofNullable(System.getProperty("magus.launcher")).map(Path::of).map(Host::real);
        return new Host(facts.env(), facts.home(), facts.uid(), facts.os(), facts.installation(), launcher, tempBase);
    }

    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (java.io.IOException | RuntimeException e) {
            return p.toAbsolutePath().normalize();
        }
    }

    /** The same host with another environment (a test's, or a demo's). */
    public Host withEnv(Map<String, String> newEnv, Path newHome) {
        return new Host(newEnv, newHome, uid, os, installation, launcher, tempBase);
    }

    /** Facts for one run, whose private temp dir is {@code privateTemp}. */
    public HostFacts facts(Path privateTemp) {
        return HostFacts.of(env, home, uid, os, installation, privateTemp);
    }

    /** magus's state dir ({@link StateDir#of}): lease markers, the job store, the audit's walks; never granted. */
    public StateDir stateDir() {
        return StateDir.of(env, home);
    }
}
