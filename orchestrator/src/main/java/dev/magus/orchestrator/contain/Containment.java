package dev.magus.orchestrator.contain;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How this process's runs end atomically, decided once: each in a cgroup v2 of its own under
 * magus's parent cgroup ({@link ByCgroup}), where magus may make one (root, or a cgroup v2
 * subtree delegated to its user, such as a systemd user scope); else by freeze-then-kill over
 * the subreaper's descendants ({@link ByFreeze}, with why). The parent is {@code magus}, a
 * threaded child of the cgroup this process is in, since a launch thread must be able to move
 * into a run's cgroup without its process ({@link dev.magus.landlock.launch.Placement}). No
 * controller is enabled anywhere: a run's cgroup needs only the core files ({@code cgroup.threads},
 * {@code cgroup.freeze}, {@code cgroup.events}), so the rule that a cgroup with domain
 * controllers for its children holds no process of its own never binds. Where the kernel
 * refuses the threaded parent (domain controllers enabled where magus is, say), runs are
 * contained by freeze-then-kill, with the kernel's reason.
 */
public sealed interface Containment {
    /** The system property that forces {@link ByFreeze} ({@code freeze}): for tests of that path on a host that has cgroups ({@link RunCgroups#containment}). */
    String FORCE = "magus.contain";
    /** The parent of every run's cgroup, under the cgroup magus is in. */
    String PARENT = "magus";

    /** One line for {@code magus probe} and {@code -v}: which path ends runs, and why. */
    String describe();

    /**
     * Runs get a cgroup of their own under {@code parent}.
     *
     * @param parentPath the parent's path from the hierarchy's root, as {@code /proc/PID/cgroup} writes it
     */
    record ByCgroup(Path parent, String parentPath) implements Containment {
        @Override
        public String describe() {
            return "runs are contained by cgroup v2: each run's processes are born in a cgroup of its own under "
                    + parent + ", frozen and killed together at its end";
        }
    }

    /** No cgroup can be made here, for {@code why}: strays are ended by freeze-then-kill over magus's descendants. */
    record ByFreeze(String why) implements Containment {
        @Override
        public String describe() {
            return "runs are contained by freeze-then-kill over magus's descendants (no cgroup of their own: " + why + ")";
        }
    }

    /** Decides from this process's files; makes magus's parent cgroup when it is missing. Never throws. */
    static Containment detect() {
        try {
            Optional<Path> mount = CgroupText.cgroup2Mount(Files.readString(Path.of("/proc/self/mountinfo")));
            if (mount.isEmpty()) {
                return new ByFreeze("no cgroup2 file system is mounted");
            }
            Optional<String> own = CgroupText.unifiedPath(Files.readString(Path.of("/proc/self/cgroup")));
            if (own.isEmpty()) {
                return new ByFreeze("this process is in no cgroup v2 it can see");
            }
            Path ownDir = own.get().equals("/") ? mount.get() : mount.get().resolve(own.get().substring(1));
            Path parent = ownDir.resolve(PARENT);
            String parentPath = (own.get().equals("/") ? "" : own.get()) + "/" + PARENT;
            if (!Files.isWritable(ownDir)) {
                return new ByFreeze("the cgroup magus is in (" + ownDir + ") is not writable by its user");
            }
            if (!Files.isDirectory(parent)) {
                try {
                    Files.createDirectory(parent);
                } catch (java.nio.file.FileAlreadyExistsException e) {
                    // another magus made it meanwhile
                }
            }
            String type = Files.readString(parent.resolve("cgroup.type")).strip();
            if (!type.equals("threaded")) {
                Files.writeString(parent.resolve("cgroup.type"), "threaded");
            }
            return new ByCgroup(parent, parentPath);
        } catch (IOException | RuntimeException e) {
            return new ByFreeze("cannot make magus's parent cgroup: " + e.getMessage());
        }
    }
}
