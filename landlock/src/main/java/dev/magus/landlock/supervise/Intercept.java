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
    Key key() {
        return new Key(op, path, host, port);
    }

    /** An intercept without its caller; equals and hashCode written out, cheaper than a record's own. */
    record Key(Operation op, String path, String host, int port) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && op == k.op && port == k.port && path.equals(k.path) && host.equals(k.host);
        }

        @Override
        public int hashCode() {
            return (op.ordinal() * 31 + path.hashCode()) * 31 + host.hashCode() * 17 + port;
        }
    }
}
