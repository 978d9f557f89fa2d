package dev.magus.orchestrator.orphans;

import dev.magus.landlock.launch.Child;
import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.launch.Launcher;
import dev.magus.landlock.launch.Spawn;
import dev.magus.landlock.launch.SpawnRequest;
import dev.magus.landlock.launch.Stdio;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The {@link Watchdog}'s other end: the {@code sh} loop, its line protocol and its spawn. One
 * line per change, {@code G pgid} / {@code g pgid} to guard or release a process group,
 * {@code D dir} / {@code d dir} for a directory, {@code C dir} / {@code c dir} for a run's
 * cgroup; at end-of-file the loop kills and removes what is still guarded. The registry of what is live, and when to send, is {@link Watchdog}'s.
 */
final class WatchdogLoop {
    /** Reads registrations until end-of-file, then kills and removes what is still registered. */
    static final String SCRIPT = String.join("\n",
            "exec >/dev/null 2>&1",
            "trap '' INT HUP QUIT TERM TSTP TTIN TTOU",
            "nl='",
            "'",
            "groups=",
            "dirs=",
            "cgroups=",
            "drop() {",
            "  kept=",
            "  rest=$1",
            "  while [ -n \"$rest\" ]; do",
            "    item=${rest%%\"$nl\"*}",
            "    rest=${rest#*\"$nl\"}",
            "    [ \"$item\" = \"$2\" ] || kept=$kept$item$nl",
            "  done",
            "}",
            "while IFS= read -r line; do",
            "  arg=${line#??}",
            "  case $line in",
            "    'G '*) groups=$groups$arg$nl ;;",
            "    'g '*) drop \"$groups\" \"$arg\"; groups=$kept ;;",
            "    'D '*) dirs=$dirs$arg$nl ;;",
            "    'd '*) drop \"$dirs\" \"$arg\"; dirs=$kept ;;",
            "    'C '*) cgroups=$cgroups$arg$nl ;;",
            "    'c '*) drop \"$cgroups\" \"$arg\"; cgroups=$kept ;;",
            "  esac",
            "done",
            "set -f",
            "IFS=$nl",
            "for g in $groups; do kill -s KILL -- \"-$g\"; done",
            // Magus (the loop's parent, $PPID as the loop started) still alive means it closed
            // its watchdog rather than died: a thread of its own may be in a run's cgroup a
            // moment longer (the launch thread that moved there to spawn), and is neither frozen
            // nor killed, which would hang or kill magus.
            "alive=no",
            "[ -d \"/proc/$PPID/task\" ] && alive=yes",
            // A run's cgroup: frozen, so nothing in it forks, each of its threads' processes
            // killed until it is empty (a few tries), then removed.
            "for c in $cgroups; do",
            "  [ \"$alive\" = yes ] || echo 1 > \"$c/cgroup.freeze\"",
            "  for try in 1 2 3 4 5 6 7 8 9 10; do",
            "    left=$(cat \"$c/cgroup.threads\") || break",
            "    [ -n \"$left\" ] || break",
            "    for t in $left; do [ -d \"/proc/$PPID/task/$t\" ] || kill -s KILL \"$t\"; done",
            "    sleep 0.1",
            "  done",
            "  rmdir \"$c\"",
            "done",
            // A process killed a moment ago may still be finishing a write into its temp dir.
            "for d in $dirs; do rm -rf -- \"$d\" || { sleep 1; rm -rf -- \"$d\"; }; done",
            "");
    private static final Path SHELL = Path.of("/bin/sh");

    private WatchdogLoop() {
    }

    static String guardGroup(long pgid) {
        return "G " + pgid;
    }

    static String releaseGroup(long pgid) {
        return "g " + pgid;
    }

    /** {@code dir} is absolute and holds no newline (the caller checks). */
    static String guardDir(String dir) {
        return "D " + dir;
    }

    static String releaseDir(String dir) {
        return "d " + dir;
    }

    /** {@code dir} is a run's cgroup, absolute, without a newline (the caller checks). */
    static String guardCgroup(String dir) {
        return "C " + dir;
    }

    static String releaseCgroup(String dir) {
        return "c " + dir;
    }

    /**
     * The loop, spawned like a mode-off child (never confined) under the name {@code name} (its
     * {@code argv[0]}), or null after telling {@code failure} why not.
     */
    static Child spawn(String name, Consumer<String> failure) {
        Spawn spawn;
        try {
            spawn = Launcher.get().spawn(new SpawnRequest(SHELL, List.of(name, "-c", SCRIPT),
                    Map.of("PATH", "/usr/bin:/bin", "LC_ALL", "C"), Path.of("/"), Stdio.PIPES), Confinement.off());
        } catch (RuntimeException | LinkageError e) {
            // No natives or no launcher here: the runs would find that out themselves.
            failure.accept("cannot start the watchdog: " + e.getMessage());
            return null;
        }
        if (spawn instanceof Spawn.NotStarted ns) {
            failure.accept("cannot start the watchdog: " + ns.message());
            return null;
        }
        Child c = ((Spawn.Started) spawn).child();
        try {
            c.stdout().close();
            c.stderr().close();
        } catch (IOException e) {
            // closing our read ends cannot fail in a way that matters
        }
        return c;
    }
}
