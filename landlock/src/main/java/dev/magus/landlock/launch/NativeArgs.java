package dev.magus.landlock.launch;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.magus.events.RawBytes;
import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * argv, envp, paths and the {@code posix_spawn} structures of one spawn, in one native
 * allocation built on the calling thread: a launch thread only reads pointers into it. The
 * spawn structures are initialised here ({@link #initSpawnStructures}); the launch sequence
 * destroys them once it has run, or {@link #destroySpawnStructures()} does when it never ran.
 *
 * <p>Built with plain loops and arrays, no lambda or string concatenation: a process spawns
 * too rarely for this to be compiled, and the interpreter makes each of those costly.
 */
final class NativeArgs {
    private static final Syscalls SYS = Natives.syscalls();

    /** How {@code execvp} runs a script without {@code #!}, and so does the launcher. */
    static final Path SHELL = Path.of("/bin/sh");
    /** Room for the child's pid ({@code pid_t}), kept 16 bytes so what follows stays aligned. */
    private static final long PID_BYTES = 16;
    /** Room for a thread name ({@code TASK_COMM_LEN}, with its NUL): the launch thread's domain tag. */
    static final int COMM_BYTES = 16;

    /**
     * Where each part of the allocation starts, in bytes from its base: the fixed-size parts
     * (pid, spawn structures, signal sets), the three pointer arrays, then the strings, each
     * followed by the NUL that {@code Memory.clear()} wrote.
     *
     * @param shellArgv {@code /bin/sh <executable> <argv[1..]>}, for a script without {@code #!}
     * @param strings   where argv's strings start, followed by the environment's {@code NAME=value}s
     * @param size      the whole allocation
     */
    record Layout(long pid, long comm, long fileActions, long attr, long sigDefault, long sigMask,
                  long argv, long envp, long shellArgv,
                  long path, long cwd, long shellPath, long strings, long size) {

        /** @param argAndEnvBytes every argument and {@code NAME=value}, each with its NUL */
        static Layout of(int argc, int envc, int pathBytes, int cwdBytes, int shellBytes, long argAndEnvBytes) {
            long comm = PID_BYTES;
            long fileActions = comm + COMM_BYTES;
            long attr = fileActions + LibC.FILE_ACTIONS_ALLOCATION;
            long sigDefault = attr + LibC.SPAWNATTR_ALLOCATION;
            long sigMask = sigDefault + LibC.SIGSET_SIZE;
            long argv = sigMask + LibC.SIGSET_SIZE;
            long envp = argv + 8L * (argc + 1);
            long shellArgv = envp + 8L * (envc + 1);
            long path = shellArgv + 8L * (argc + 2);
            long cwd = path + pathBytes + 1;
            long shellPath = cwd + cwdBytes + 1;
            long strings = shellPath + shellBytes + 1;
            return new Layout(0, comm, fileActions, attr, sigDefault, sigMask, argv, envp, shellArgv,
                    path, cwd, shellPath, strings, strings + argAndEnvBytes);
        }
    }

    final Memory memory;
    final Pointer pid;
    /** The name the launch thread gives itself before it creates the child's domain (NUL: none). */
    final Pointer comm;
    final Pointer fileActions;
    final Pointer attr;
    final Pointer sigDefault;
    final Pointer sigMask;
    final Pointer path;
    final Pointer cwd;
    final Pointer argv;
    final Pointer envp;
    final Pointer shellPath;
    final Pointer shellArgv;
    private boolean fileActionsReady;
    private boolean attrReady;

    private NativeArgs(Memory memory, Layout at) {
        this.memory = memory;
        long base = Pointer.nativeValue(memory);
        this.pid = new Pointer(base + at.pid());
        this.comm = new Pointer(base + at.comm());
        this.fileActions = new Pointer(base + at.fileActions());
        this.attr = new Pointer(base + at.attr());
        this.sigDefault = new Pointer(base + at.sigDefault());
        this.sigMask = new Pointer(base + at.sigMask());
        this.path = new Pointer(base + at.path());
        this.cwd = new Pointer(base + at.cwd());
        this.argv = new Pointer(base + at.argv());
        this.envp = new Pointer(base + at.envp());
        this.shellPath = new Pointer(base + at.shellPath());
        this.shellArgv = new Pointer(base + at.shellArgv());
    }

    /** @throws IllegalArgumentException for a NUL in an argument, path or environment entry */
    static NativeArgs build(SpawnRequest request, Path shell) {
        List<String> args = request.argv();
        int argc = args.size();
        byte[][] argv = new byte[argc][];
        long variable = 0;
        for (int i = 0; i < argc; i++) {
            argv[i] = bytes(args.get(i));
            variable += argv[i].length + 1;
        }
        Map<String, String> env = request.environment();
        int envc = env.size();
        byte[][] names = new byte[envc][];
        byte[][] values = new byte[envc][];
        int j = 0;
        for (Map.Entry<String, String> e : env.entrySet()) {
            names[j] = bytes(e.getKey());
            values[j] = bytes(e.getValue());
            variable += names[j].length + values[j].length + 2;
            j++;
        }
        byte[] path = bytes(request.executable().toString());
        byte[] cwd = bytes(request.workingDirectory().toString());
        byte[] shellPath = bytes(shell.toString());

        Layout at = Layout.of(argc, envc, path.length, cwd.length, shellPath.length, variable);
        Memory m = new Memory(at.size());
        m.clear();
        long base = Pointer.nativeValue(m);
        put(m, at.path(), path);
        put(m, at.cwd(), cwd);
        put(m, at.shellPath(), shellPath);
        long s = at.strings();
        long[] argvAt = new long[argc];
        for (int i = 0; i < argc; i++) {
            argvAt[i] = s;
            s = put(m, s, argv[i]);
        }
        for (int i = 0; i < envc; i++) {
            m.setLong(at.envp() + 8L * i, base + s);
            m.write(s, names[i], 0, names[i].length);
            m.setByte(s + names[i].length, (byte) '=');
            s = put(m, s + names[i].length + 1, values[i]);
        }
        m.setLong(at.envp() + 8L * envc, 0);
        for (int i = 0; i < argc; i++) {
            m.setLong(at.argv() + 8L * i, base + argvAt[i]);
        }
        m.setLong(at.argv() + 8L * argc, 0);
        // /bin/sh <executable> <argv[1..]>: how execvp runs a script without #!.
        m.setLong(at.shellArgv(), base + at.shellPath());
        m.setLong(at.shellArgv() + 8, base + at.path());
        for (int i = 1; i < argc; i++) {
            m.setLong(at.shellArgv() + 8L * (i + 1), base + argvAt[i]);
        }
        m.setLong(at.shellArgv() + 8L * (argc + 1), 0);
        return new NativeArgs(m, at);
    }

    /**
     * Initialises the file actions (the child's 0, 1, 2 from {@code pipes}, its working
     * directory, every other descriptor closed) and the attributes (default signal handlers, an
     * empty mask, a session of its own unless it inherits magus's terminal).
     *
     * @throws IllegalStateException naming the call that failed; what was initialised is then
     *                               for {@link #destroySpawnStructures()}
     */
    void initSpawnStructures(Stdio stdio, Pipes pipes) {
        check(SYS.posix_spawn_file_actions_init(fileActions), "posix_spawn_file_actions_init");
        fileActionsReady = true;
        if (stdio != Stdio.INHERIT) {
            check(SYS.posix_spawn_file_actions_adddup2(fileActions, pipes.childIn, 0), "adddup2");
            check(SYS.posix_spawn_file_actions_adddup2(fileActions, pipes.childOut, 1), "adddup2");
            check(SYS.posix_spawn_file_actions_adddup2(fileActions, pipes.childErr, 2), "adddup2");
        }
        check(SYS.posix_spawn_file_actions_addchdir_np(fileActions, cwd), "addchdir_np");
        // Not optional: the JVM holds descriptors without O_CLOEXEC, and a child would read through them.
        check(SYS.posix_spawn_file_actions_addclosefrom_np(fileActions, 3), "addclosefrom_np");
        check(SYS.posix_spawnattr_init(attr), "posix_spawnattr_init");
        attrReady = true;
        short flags = (short) (LibC.POSIX_SPAWN_SETSIGDEF | LibC.POSIX_SPAWN_SETSIGMASK);
        if (stdio != Stdio.INHERIT) {
            // A session of its own: no controlling terminal to inject keystrokes into, and a group to kill.
            flags |= LibC.POSIX_SPAWN_SETSID;
        }
        check(SYS.posix_spawnattr_setflags(attr, flags), "posix_spawnattr_setflags");
        SYS.sigfillset(sigDefault);
        SYS.sigemptyset(sigMask);
        check(SYS.posix_spawnattr_setsigdefault(attr, sigDefault), "setsigdefault");
        check(SYS.posix_spawnattr_setsigmask(attr, sigMask), "setsigmask");
    }

    /** Destroys what {@link #initSpawnStructures} made, for a spawn whose launch sequence never ran. */
    void destroySpawnStructures() {
        if (fileActionsReady) {
            SYS.posix_spawn_file_actions_destroy(fileActions);
        }
        if (attrReady) {
            SYS.posix_spawnattr_destroy(attr);
        }
    }

    void close() {
        memory.close();
    }

    /** Writes {@code name} (ASCII, at most 15 bytes) where the launch thread reads its new name. */
    void comm(String name) {
        byte[] b = name.getBytes(StandardCharsets.US_ASCII);
        if (b.length >= COMM_BYTES) {
            throw new IllegalArgumentException("a thread name holds at most " + (COMM_BYTES - 1) + " bytes: " + name);
        }
        memory.write(at(comm), b, 0, b.length);
        memory.setByte(at(comm) + b.length, (byte) 0);
    }

    private long at(Pointer p) {
        return Pointer.nativeValue(p) - Pointer.nativeValue(memory);
    }

    /** Writes {@code b} at {@code at}; returns where the next string starts, after its NUL. */
    private static long put(Memory m, long at, byte[] b) {
        m.write(at, b, 0, b.length);
        return at + b.length + 1;
    }

    /**
     * {@code s} in UTF-8, without the NUL it gets in native memory; a byte that was not UTF-8
     * where the caller wrote it is that byte again ({@link RawBytes}).
     */
    private static byte[] bytes(String s) {
        if (s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("NUL in an argument, path or environment entry");
        }
        return RawBytes.encode(s);
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " failed: " + Errno.describe(rc));
        }
    }
}
