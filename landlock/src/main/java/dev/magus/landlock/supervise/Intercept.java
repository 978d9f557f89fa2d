package dev.magus.landlock.supervise;

import dev.magus.events.Operation;
import java.util.Objects;

/**
 * One intercepted call as the supervisor read it while the caller waited: a path made absolute
 * against the caller's working directory or directory descriptor, or a TCP address.
 *
 * @param op   READ, WRITE, EXEC, CONNECT or BIND
 * @param pid  the calling thread's id
 * @param path the absolute path as the caller named it (not resolved further); empty for an address
 * @param host the address of a connect or bind ({@code [..]} around IPv6); empty for a path
 * @param port the port of a connect or bind; -1 for a path
 */
record Intercept(Operation op, int pid, String path, String host, int port) {
    Intercept {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(host, "host");
    }

    /** What makes two intercepts the same question to the policy. */
    String key() {
        return op.name() + '\0' + path + '\0' + host + '\0' + port;
    }
}
