package dev.magus.landlock.launch;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import dev.magus.landlock.sys.Capabilities;
import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Structs;
import dev.magus.landlock.sys.Syscalls;
import java.util.ArrayList;
import java.util.List;

/**
 * What a launch thread does to its capabilities before spawning, computed once on an
 * ordinary thread. A Landlock-confined child that still holds CAP_SYS_ADMIN or CAP_PERFMON
 * reads {@code /proc/<pid>/environ} of unconfined root processes (magus's own JVM among
 * them), so a root magus cuts a child to {@link Capabilities#KEPT}: bounding set first
 * (needs CAP_SETPCAP), then effective and permitted, inheritable emptied (as runc does), then
 * the ambient set cleared. A spare launch thread makes the cut as soon as it starts (it is the
 * same for every child), so a spawn pays only for no_new_privs and the domain; a launch thread
 * ends right after its spawn, so no JVM thread that runs anything else has the cut.
 */
final class CapabilityDrop {
    private static final Syscalls SYS = Natives.syscalls();

    final boolean active;
    /** Capabilities to remove from the bounding set, one {@code PR_CAPBSET_DROP} each. */
    final int[] bounding;
    // The native structures capset reads; held here so they outlive every launch.
    private final Structs.CapHeader header;
    private final Structure[] data;
    // Taken once here: the launch thread reads these fields and calls nothing on a Structure.
    final Pointer headerPointer;
    final Pointer dataPointer;

    private CapabilityDrop(boolean active, int[] bounding, Structs.CapHeader header, Structure[] data) {
        this.active = active;
        this.bounding = bounding;
        this.header = header;
        this.data = data;
        this.headerPointer = header.getPointer();
        this.dataPointer = data[0].getPointer();
    }

    private static volatile CapabilityDrop process;

    /**
     * The plan of this process's launchers and of the spares they use, computed once (the
     * process's capabilities do not change under magus).
     */
    static CapabilityDrop forProcess() {
        CapabilityDrop p = process;
        if (p == null) {
            synchronized (CapabilityDrop.class) {
                p = process;
                if (p == null) {
                    p = plan(true);
                    process = p;
                }
            }
        }
        return p;
    }

    static CapabilityDrop plan(boolean enabled) {
        Structs.CapHeader header = new Structs.CapHeader();
        header.version = Capabilities.LINUX_CAPABILITY_VERSION_3;
        header.pid = 0;
        header.write();
        Structure[] data = new Structs.CapData().toArray(2);
        if (SYS.capget(header.getPointer(), data[0].getPointer()) != 0) {
            throw new IllegalStateException("capget failed: " + Errno.describe(SYS.errno()));
        }
        for (Structure s : data) {
            s.read();
        }
        long effective = combine(data, 0);
        long permitted = combine(data, 1);
        boolean root = SYS.geteuid() == 0 || SYS.getuid() == 0;
        boolean needed = Capabilities.cutNeeded(root, effective | permitted);
        if (!enabled || !needed) {
            return new CapabilityDrop(false, new int[0], header, data);
        }
        List<Integer> drop = new ArrayList<>();
        if ((effective & (1L << Capabilities.SETPCAP)) != 0) {
            for (int cap = 0; cap <= Capabilities.lastCap(); cap++) {
                if ((Capabilities.KEPT & (1L << cap)) == 0 && SYS.prctl(LibC.PR_CAPBSET_READ, cap, 0, 0, 0) == 1) {
                    drop.add(cap);
                }
            }
        }
        long keepEffective = effective & Capabilities.KEPT;
        long keepPermitted = permitted & Capabilities.KEPT;
        header.version = Capabilities.LINUX_CAPABILITY_VERSION_3;
        header.pid = 0;
        header.write();
        set(data, keepEffective, keepPermitted);
        return new CapabilityDrop(true, drop.stream().mapToInt(Integer::intValue).toArray(), header, data);
    }

    private static long combine(Structure[] data, int field) {
        long low = Integer.toUnsignedLong(value((Structs.CapData) data[0], field));
        long high = Integer.toUnsignedLong(value((Structs.CapData) data[1], field));
        return low | (high << 32);
    }

    private static int value(Structs.CapData d, int field) {
        return field == 0 ? d.effective : field == 1 ? d.permitted : d.inheritable;
    }

    private static void set(Structure[] data, long effective, long permitted) {
        Structs.CapData low = (Structs.CapData) data[0];
        Structs.CapData high = (Structs.CapData) data[1];
        low.effective = (int) effective;
        low.permitted = (int) permitted;
        low.inheritable = 0;
        high.effective = (int) (effective >>> 32);
        high.permitted = (int) (permitted >>> 32);
        high.inheritable = 0;
        low.write();
        high.write();
    }
}
