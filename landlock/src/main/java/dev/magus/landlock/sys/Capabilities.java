package dev.magus.landlock.sys;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Capability numbers and the set a root child keeps. */
public final class Capabilities {
    private Capabilities() {
    }

    public static final int CHOWN = 0;
    public static final int DAC_OVERRIDE = 1;
    public static final int FOWNER = 3;
    public static final int FSETID = 4;
    public static final int KILL = 5;
    public static final int SETGID = 6;
    public static final int SETUID = 7;
    public static final int SETPCAP = 8;
    public static final int NET_BIND_SERVICE = 10;
    public static final int NET_ADMIN = 12;
    public static final int NET_RAW = 13;
    public static final int SYS_CHROOT = 18;
    public static final int SYS_PTRACE = 19;
    public static final int SYS_ADMIN = 21;
    public static final int MKNOD = 27;
    public static final int AUDIT_WRITE = 29;
    public static final int SETFCAP = 31;
    public static final int PERFMON = 38;

    public static final int LINUX_CAPABILITY_VERSION_3 = 0x20080522;

    /**
     * Docker's default set minus {@code mknod} and {@code net_raw}. Landlock grants
     * {@code MAKE_BLOCK} with every directory write, and there is no device cgroup, so a root
     * child keeping {@code CAP_MKNOD} could make a node for the host's disk and read it raw.
     * {@code CAP_NET_RAW} opens raw and packet sockets, which Landlock's TCP rules never see.
     * {@code CAP_NET_ADMIN} reconfigures the host's network. Without {@code CAP_FSETID} the
     * kernel clears set-ID bits when a root child writes to such a file (seccomp's
     * {@code SetidModes} refuses setting them).
     */
    public static final long KEPT = bits(CHOWN, DAC_OVERRIDE, FOWNER, SETGID, SETUID,
            SETFCAP, SETPCAP, NET_BIND_SERVICE, SYS_CHROOT, KILL, AUDIT_WRITE);

    /**
     * Whether a magus cuts its children's capabilities to {@link #KEPT}: when it runs as root,
     * or holds (effective or permitted, in {@code held}) any capability beyond that set.
     */
    public static boolean cutNeeded(boolean root, long held) {
        return root || (held & ~KEPT) != 0;
    }

    public static long bits(int... caps) {
        long b = 0;
        for (int c : caps) {
            b |= 1L << c;
        }
        return b;
    }

    /**
     * {@code /proc/sys/kernel/cap_last_cap}, or 40 (Linux 5.9 and later) when it cannot be read.
     * Read as a stream: procfs reports a size of 0, which {@code Files.readString} trusts.
     */
    public static int lastCap() {
        try (InputStream in = Files.newInputStream(Path.of("/proc/sys/kernel/cap_last_cap"))) {
            return Integer.parseInt(new String(in.readAllBytes(), StandardCharsets.US_ASCII).strip());
        } catch (IOException | NumberFormatException e) {
            return 40;
        }
    }
}
