package dev.magus.landlock.sys;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import java.util.List;

/**
 * The kernel structures this module passes by pointer. They are filled and written on an
 * ordinary thread; only their pointers ever reach the launch thread. Sizes are pinned by a
 * test because a wrong size is not an error the kernel always reports the same way.
 */
public final class Structs {
    private Structs() {
    }

    /** {@code struct landlock_ruleset_attr} as of ABI 6: 24 bytes. Older kernels accept it when the tail is zero. */
    @Structure.FieldOrder({"handled_access_fs", "handled_access_net", "scoped"})
    public static final class RulesetAttr extends Structure {
        public long handled_access_fs;
        public long handled_access_net;
        public long scoped;
    }

    /**
     * {@code struct landlock_path_beneath_attr}, declared {@code __attribute__((packed))}: 12
     * bytes. JNA's default alignment would pad it to 16, which the kernel rejects.
     */
    @Structure.FieldOrder({"allowed_access", "parent_fd"})
    public static final class PathBeneathAttr extends Structure {
        public long allowed_access;
        public int parent_fd;

        public PathBeneathAttr() {
            super(Structure.ALIGN_NONE);
        }

        /**
         * Sets both fields and writes them to native memory at their packed offsets (0 and 8):
         * the same 12 bytes as {@link #write()}, without its reflection over the fields, once per
         * rule of every compile.
         */
        public void set(long allowedAccess, int parentFd) {
            allowed_access = allowedAccess;
            parent_fd = parentFd;
            Pointer p = getPointer();
            p.setLong(0, allowedAccess);
            p.setInt(8, parentFd);
        }
    }

    /** {@code struct landlock_net_port_attr} (ABI 4): 16 bytes, the port in host byte order. */
    @Structure.FieldOrder({"allowed_access", "port"})
    public static final class NetPortAttr extends Structure {
        public long allowed_access;
        public long port;
    }

    /** {@code struct __user_cap_header_struct}: 8 bytes. */
    @Structure.FieldOrder({"version", "pid"})
    public static final class CapHeader extends Structure {
        public int version;
        public int pid;
    }

    /** {@code struct __user_cap_data_struct}: 12 bytes; version 3 takes an array of two (low and high 32 capabilities). */
    @Structure.FieldOrder({"effective", "permitted", "inheritable"})
    public static final class CapData extends Structure {
        public int effective;
        public int permitted;
        public int inheritable;
    }

    /** Field order for JNA's reflection check; kept here so a rename fails at compile time. */
    static List<Class<? extends Structure>> all() {
        return List.of(RulesetAttr.class, PathBeneathAttr.class, NetPortAttr.class, CapHeader.class, CapData.class);
    }
}
