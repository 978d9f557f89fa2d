package dev.magus.server.lifecycle;

import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * When the server has been idle long enough to exit: idle means no connection at all (a run
 * lives only as long as its client's connection, which ends it), counted from the moment the
 * last connection closed, or from the start. A connection that only asked for the status does not
 * restart the count, so that watching a server does not keep it alive. Pure: the clock is given,
 * and the caller schedules {@link #expired} checks at {@link #remainingMillis}.
 */
public final class IdleWatch {
    private final IdleTimeout timeout;
    private final LongSupplier millis;
    private int connections;
    private long idleSince;

    /** @param millis a wall clock in milliseconds ({@code System::currentTimeMillis}) */
    public IdleWatch(IdleTimeout timeout, LongSupplier millis) {
        this.timeout = timeout;
        this.millis = millis;
        this.idleSince = millis.getAsLong();
    }

    public IdleTimeout timeout() {
        return timeout;
    }

    public synchronized void opened() {
        connections++;
    }

    /**
     * A connection closed; true when that left none.
     *
     * @param activity false for a connection that only asked for the status: the count goes on
     */
    public synchronized boolean closed(boolean activity) {
        connections = Math.max(0, connections - 1);
        if (connections == 0 && activity) {
            idleSince = millis.getAsLong();
        }
        return connections == 0;
    }

    public synchronized int connections() {
        return connections;
    }

    /**
     * When the server stops if nothing connects before (epoch milliseconds), not counting
     * {@code besides} of the open connections (a status query's own); empty while another is
     * open or with no timeout.
     */
    public synchronized OptionalLong stopsAt(int besides) {
        return connections > besides || timeout.never() ? OptionalLong.empty()
                : OptionalLong.of(idleSince + timeout.value().toMillis());
    }

    /** Milliseconds until the server stops, at least 0; empty while a connection is open or with no timeout. */
    public synchronized OptionalLong remainingMillis() {
        OptionalLong at = stopsAt(0);
        return at.isEmpty() ? at : OptionalLong.of(Math.max(0, at.getAsLong() - millis.getAsLong()));
    }

    public synchronized boolean expired() {
        OptionalLong left = remainingMillis();
        return left.isPresent() && left.getAsLong() == 0;
    }
}
