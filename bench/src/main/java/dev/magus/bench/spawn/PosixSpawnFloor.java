package dev.magus.bench.spawn;

import com.sun.jna.Memory;
import com.sun.jna.StringArray;
import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import java.nio.file.Path;
import java.util.List;

/**
 * The floor: {@code posix_spawn} on the calling thread through JNA, unconfined, with the same
 * child set-up the confined launcher gives its children (three pipes, dup2 onto 0/1/2, chdir,
 * closefrom(3), a session of its own, default signal dispositions, empty mask), so that the
 * gap to the launcher is its fresh thread, no_new_privs, the capability cut and
 * {@code landlock_restrict_self}, and nothing else.
 */
final class PosixSpawnFloor {
    private static final Syscalls SYS = Natives.syscalls();

    /** Built once: the floor pays only for what every spawn must do. */
    private final Memory pipes = new Memory(24);
    private final Memory pid = new Memory(8);
    private final Memory fa = new Memory(LibC.FILE_ACTIONS_ALLOCATION);
    private final Memory attr = new Memory(LibC.SPAWNATTR_ALLOCATION);
    private final Memory sigDefault = new Memory(LibC.SIGSET_SIZE);
    private final Memory sigMask = new Memory(LibC.SIGSET_SIZE);
    private final Memory path;
    private final Memory dir;
    private final StringArray argv;
    private final StringArray envp;

    /** A running child: its pid and the parent's ends of its three pipes. */
    record Spawned(int pid, int stdin, int stdout, int stderr) {
    }

    PosixSpawnFloor(Path executable, Path cwd, List<String> envp) {
        this.path = cString(executable.toString());
        this.dir = cString(cwd.toString());
        this.argv = new StringArray(new String[]{executable.toString()});
        this.envp = new StringArray(envp.toArray(String[]::new));
    }

    /** Spawns; the caller ends it with {@link #finish}. */
    Spawned spawn() {
        for (int i = 0; i < 3; i++) {
            if (SYS.pipe2(pipes.share(8L * i), LibC.O_CLOEXEC) != 0) {
                throw new IllegalStateException("pipe2: " + Errno.describe(SYS.errno()));
            }
        }
        // pipe i: [2i] read end, [2i+1] write end. The child reads pipe 0 and writes pipes 1 and 2.
        int childIn = pipes.getInt(0);
        int parentIn = pipes.getInt(4);
        int parentOut = pipes.getInt(8);
        int childOut = pipes.getInt(12);
        int parentErr = pipes.getInt(16);
        int childErr = pipes.getInt(20);
        try {
            check(SYS.posix_spawn_file_actions_init(fa), "file_actions_init");
            check(SYS.posix_spawnattr_init(attr), "spawnattr_init");
            try {
                check(SYS.posix_spawn_file_actions_adddup2(fa, childIn, 0), "adddup2");
                check(SYS.posix_spawn_file_actions_adddup2(fa, childOut, 1), "adddup2");
                check(SYS.posix_spawn_file_actions_adddup2(fa, childErr, 2), "adddup2");
                check(SYS.posix_spawn_file_actions_addchdir_np(fa, dir), "addchdir_np");
                check(SYS.posix_spawn_file_actions_addclosefrom_np(fa, 3), "addclosefrom_np");
                check(SYS.posix_spawnattr_setflags(attr,
                        (short) (LibC.POSIX_SPAWN_SETSIGDEF | LibC.POSIX_SPAWN_SETSIGMASK | LibC.POSIX_SPAWN_SETSID)), "setflags");
                SYS.sigfillset(sigDefault);
                SYS.sigemptyset(sigMask);
                check(SYS.posix_spawnattr_setsigdefault(attr, sigDefault), "setsigdefault");
                check(SYS.posix_spawnattr_setsigmask(attr, sigMask), "setsigmask");
                check(SYS.posix_spawn(pid, path, fa, attr, argv, envp), "posix_spawn");
            } finally {
                SYS.posix_spawn_file_actions_destroy(fa);
                SYS.posix_spawnattr_destroy(attr);
            }
        } finally {
            SYS.close(childIn);
            SYS.close(childOut);
            SYS.close(childErr);
        }
        return new Spawned(pid.getInt(0), parentIn, parentOut, parentErr);
    }

    /** Reaps the child and closes the parent's pipe ends; returns the wait status. */
    static int finish(Spawned s) {
        int status = reap(s.pid());
        SYS.close(s.stdin());
        SYS.close(s.stdout());
        SYS.close(s.stderr());
        return status;
    }

    static int reap(int pid) {
        Memory status = new Memory(4);
        while (true) {
            int r = SYS.waitpid(pid, status, 0);
            if (r == pid) {
                return status.getInt(0);
            }
            int errno = SYS.errno();
            if (errno != Errno.EINTR) {
                throw new IllegalStateException("waitpid: " + Errno.describe(errno));
            }
        }
    }

    private static Memory cString(String s) {
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Memory m = new Memory(b.length + 1L);
        m.write(0, b, 0, b.length);
        m.setByte(b.length, (byte) 0);
        return m;
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " failed: " + Errno.describe(rc));
        }
    }
}
