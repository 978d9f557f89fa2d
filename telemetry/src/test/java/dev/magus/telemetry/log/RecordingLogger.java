package dev.magus.telemetry.log;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** A logger that keeps what it is given, enabled from {@code threshold} upwards. */
final class RecordingLogger extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;

    record Entry(Level level, String message) {
    }

    private final Level threshold;
    final List<Entry> entries = new ArrayList<>();

    RecordingLogger(Level threshold) {
        this.threshold = threshold;
        this.name = "recording";
    }

    private boolean on(Level level) {
        return level.toInt() >= threshold.toInt();
    }

    @Override
    public boolean isTraceEnabled() {
        return on(Level.TRACE);
    }

    @Override
    public boolean isDebugEnabled() {
        return on(Level.DEBUG);
    }

    @Override
    public boolean isInfoEnabled() {
        return on(Level.INFO);
    }

    @Override
    public boolean isWarnEnabled() {
        return on(Level.WARN);
    }

    @Override
    public boolean isErrorEnabled() {
        return on(Level.ERROR);
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] args, Throwable t) {
        entries.add(new Entry(level, args == null ? pattern : MessageFormatter.basicArrayFormat(pattern, args)));
    }
}
