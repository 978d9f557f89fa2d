package dev.magus.landlock.supervise;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.magus.landlock.seccomp.Arch;
import dev.magus.landlock.seccomp.NotifyFilterProgram;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether this host can supervise a child: seccomp user notification with
 * {@code SECCOMP_USER_NOTIF_FLAG_CONTINUE} (Linux 5.5) and {@code SECCOMP_IOCTL_NOTIF_ADDFD}
 * (5.9), on an architecture magus filters. Probed once per process.
 *
 * @param reason why not, for the notice or the refusal; empty when available
 */
public record Support(boolean available, String reason) {
    private static final int GET_ACTION_AVAIL = 2;
    private static final Pattern VERSION = Pattern.compile("^(\\d+)\\.(\\d+)");
    private static volatile Support probed;

    public Support {
        Objects.requireNonNull(reason, "reason");
    }

    public static Support probe() {
        Support s = probed;
        if (s == null) {
            s = of(Natives.syscalls(), System.getProperty("os.version", ""));
            probed = s;
        }
        return s;
    }

    /**
     * Why an approver cannot be asked here, empty when it can: an approved open is handed over
     * with {@code SECCOMP_IOCTL_NOTIF_ADDFD}'s {@code SEND} flag (Linux 5.14), on a host that can
     * supervise at all.
     */
    public static Optional<String> approvalGap() {
        Support s = probe();
        return s.available() ? approvalGap(System.getProperty("os.version", "")) : Optional.of(s.reason());
    }

    static Optional<String> approvalGap(String kernel) {
        Matcher m = VERSION.matcher(kernel);
        if (!m.find()) {
            return Optional.of("unknown kernel version '" + kernel + "'");
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        return major < 5 || major == 5 && minor < 14
                ? Optional.of("kernel " + kernel + " is older than 5.14 (user notification's ADDFD with SEND)")
                : Optional.empty();
    }

    static Support of(Syscalls sys, String kernel) {
        if (!sys.available()) {
            return new Support(false, "no native calls here: " + sys.unavailableReason());
        }
        if (Arch.host().isEmpty()) {
            return new Support(false, "no seccomp filter for os.arch " + System.getProperty("os.arch"));
        }
        Memory action = new Memory(4);
        action.setInt(0, NotifyFilterProgram.RET_USER_NOTIF);
        long r = sys.seccomp(GET_ACTION_AVAIL, 0, Pointer.nativeValue(action));
        if (r != 0) {
            return new Support(false, "this kernel has no seccomp user notification (Linux 5.0): "
                    + sys.describe((int) -r));
        }
        Matcher m = VERSION.matcher(kernel);
        if (!m.find()) {
            return new Support(false, "unknown kernel version '" + kernel + "'");
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        if (major < 5 || major == 5 && minor < 9) {
            return new Support(false, "kernel " + kernel + " is older than 5.9 (user notification's CONTINUE and ADDFD)");
        }
        return new Support(true, "");
    }
}
