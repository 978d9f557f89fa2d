package dev.magus.landlock.sys;

import com.sun.jna.Platform;

/**
 * Landlock's constants: the system call numbers, rights, scopes and flags. The calls themselves
 * are {@link Syscalls}'s {@code landlock*} methods.
 */
public final class Landlock {
    private Landlock() {
    }

    // Landlock's syscalls were added after the per-architecture tables were unified, so x86_64
    // and aarch64 share the numbers; anything else gets the unsupported Syscalls (Natives).
    public static final long SYS_CREATE_RULESET = 444;
    public static final long SYS_ADD_RULE = 445;
    public static final long SYS_RESTRICT_SELF = 446;

    public static final int CREATE_RULESET_VERSION = 1;
    public static final int RULE_PATH_BENEATH = 1;
    /** ABI 4: a rule on a TCP port ({@code struct landlock_net_port_attr}). */
    public static final int RULE_NET_PORT = 2;

    // Network rights, ABI 4: TCP only, per port (never per address).
    public static final long NET_BIND_TCP = 1L;
    public static final long NET_CONNECT_TCP = 1L << 1;

    // Filesystem rights, with the ABI that introduced them.
    public static final long EXECUTE = 1L;
    public static final long WRITE_FILE = 1L << 1;
    public static final long READ_FILE = 1L << 2;
    public static final long READ_DIR = 1L << 3;
    public static final long REMOVE_DIR = 1L << 4;
    public static final long REMOVE_FILE = 1L << 5;
    public static final long MAKE_CHAR = 1L << 6;
    public static final long MAKE_DIR = 1L << 7;
    public static final long MAKE_REG = 1L << 8;
    public static final long MAKE_SOCK = 1L << 9;
    public static final long MAKE_FIFO = 1L << 10;
    public static final long MAKE_BLOCK = 1L << 11;
    public static final long MAKE_SYM = 1L << 12;
    /** ABI 2. */
    public static final long REFER = 1L << 13;
    /** ABI 3. */
    public static final long TRUNCATE = 1L << 14;
    /** ABI 5. */
    public static final long IOCTL_DEV = 1L << 15;

    /** Rights that apply to a file itself; the kernel refuses any other right on a non-directory. */
    public static final long FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV;

    // Scopes, ABI 6.
    public static final long SCOPE_ABSTRACT_UNIX_SOCKET = 1L;
    public static final long SCOPE_SIGNAL = 1L << 1;

    // landlock_restrict_self flags, ABI 7.
    /** Keep logging denials after execve: the denials we care about are the exec'd tool's. */
    public static final int RESTRICT_SELF_LOG_NEW_EXEC_ON = 2;

    /** Whether the running architecture has the numbers above. */
    public static boolean architectureSupported() {
        return Platform.isLinux() && Platform.is64Bit()
                && (Platform.ARCH.equals("x86-64") || Platform.ARCH.equals("aarch64"));
    }
}
