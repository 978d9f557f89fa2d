package dev.magus.landlock.denials.audit;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The audit records the denial source uses, parsed. Records of one event share its
 * {@code serial} (the {@code :N} of {@code audit(T:N)}): an access record, on a domain's
 * first denial its domain record, and the syscall record when syscall auditing is active.
 */
public sealed interface AuditRecord {

    int TYPE_SYSCALL = 1300;
    int TYPE_LANDLOCK_ACCESS = 1423;
    int TYPE_LANDLOCK_DOMAIN = 1424;

    long serial();

    /**
     * {@code type=1423}: a denied access.
     *
     * @param domain   the Landlock domain that refused it (hex id as printed)
     * @param blockers the missing rights, e.g. {@code fs.read_file}, {@code fs.make_reg}
     * @param path     the object, decoded ({@code path=} or {@code name=}); for a create or a
     *                 removal the kernel names the parent directory
     */
    record Access(long serial, String domain, List<String> blockers, Optional<String> path, Optional<Socket> socket)
            implements AuditRecord {
        public Access {
            blockers = List.copyOf(blockers);
            java.util.Objects.requireNonNull(path, "path");
            java.util.Objects.requireNonNull(socket, "socket");
        }

        /** A filesystem access (or one with neither path nor address). */
        public Access(long serial, String domain, List<String> blockers, Optional<String> path) {
            this(serial, domain, blockers, path, Optional.empty());
        }
    }

    /**
     * The address of a refused TCP connect ({@code daddr=} and {@code dest=}) or bind
     * ({@code saddr=} and {@code src=}), as the kernel's LSM audit prints them: it leaves out an
     * address or a port that is zero (a bind to 0.0.0.0, a bind to port 0).
     *
     * @param address the IPv4 or IPv6 address as printed, empty when the kernel left it out
     * @param port    the port, empty when the kernel left it out
     */
    record Socket(String address, OptionalInt port) {
        public Socket {
            java.util.Objects.requireNonNull(address, "address");
            java.util.Objects.requireNonNull(port, "port");
        }
    }

    /**
     * {@code type=1424}: a domain's description (status {@code allocated}, logged with its first
     * denial, carrying the process that created it and the name of its creating thread,
     * {@code comm}, empty when absent) or its end ({@code deallocated}).
     */
    record Domain(long serial, String domain, String status, OptionalLong pid, String comm) implements AuditRecord {
        public boolean allocated() {
            return status.equals("allocated");
        }
    }

    /** {@code type=1300}: the syscall of the event, with the process that made it. */
    record Syscall(long serial, long pid, long ppid) implements AuditRecord {
    }
}
