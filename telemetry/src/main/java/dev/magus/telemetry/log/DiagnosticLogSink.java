package dev.magus.telemetry.log;

import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.events.Severity;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * One structured SLF4J line per diagnostic, in logfmt:
 * {@code code=MGS2001 layer=kernel op=read subject=/x source=stderr msg="..." run=r-1}.
 * The level follows the code's severity ({@link #level}); other events are not logged.
 * Safe to share: it holds nothing but the logger.
 */
public final class DiagnosticLogSink implements Consumer<RunEvent> {
    /** The logger name the no-argument constructor uses, so a backend can route it. */
    public static final String LOGGER_NAME = "magus.diagnostics";

    private final Logger logger;

    public DiagnosticLogSink() {
        this(LoggerFactory.getLogger(LOGGER_NAME));
    }

    public DiagnosticLogSink(Logger logger) {
        this.logger = Objects.requireNonNull(logger, "logger");
    }

    @Override
    public void accept(RunEvent event) {
        if (!(event instanceof RunEvent.Diag d)) {
            return;
        }
        Level level = level(d.diagnostic().severity());
        if (!logger.isEnabledForLevel(level)) {
            return;
        }
        String line = line(d);
        // No-argument calls: a '{}' inside a path or message is printed, not substituted.
        switch (level) {
            case ERROR -> logger.error(line);
            case WARN -> logger.warn(line);
            case INFO -> logger.info(line);
            case DEBUG -> logger.debug(line);
            case TRACE -> logger.trace(line);
        }
    }

    /** error→ERROR, warning→WARN, info→INFO, hint→INFO, debug→DEBUG. */
    public static Level level(Severity severity) {
        return switch (severity) {
            case ERROR -> Level.ERROR;
            case WARNING -> Level.WARN;
            case INFO, HINT -> Level.INFO;
            case DEBUG -> Level.DEBUG;
        };
    }

    /**
     * The line logged for {@code event}. Values that are empty or hold a space, quote, '=',
     * backslash or invisible character are quoted, msg always; inside quotes those are
     * escaped, so the line never breaks and reads back to the same values.
     */
    public static String line(RunEvent.Diag event) {
        Diagnostic d = event.diagnostic();
        StringBuilder out = new StringBuilder(128);
        out.append("code=").append(d.code().name());
        out.append(" layer=").append(d.layer().label());
        out.append(" op=").append(d.operation().label());
        out.append(" subject=").append(value(d.subject()));
        out.append(" source=").append(value(d.source()));
        out.append(" msg=").append(quoted(d.message()));
        out.append(" run=").append(value(event.runId()));
        return out.toString();
    }

    private static String value(String v) {
        if (v.isEmpty()) {
            return quoted(v);
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '"' || c == '=' || c == '\\' || Character.isWhitespace(c) || Character.isSpaceChar(c) || invisible(c)) {
                return quoted(v);
            }
        }
        return v;
    }

    /**
     * Characters that would break the line, move the cursor or reorder text on a terminal
     * (C0/C1 controls, line and paragraph separators, bidi overrides and other format
     * characters): a path can hold any of them, and a log line must not let it spoof another.
     */
    private static boolean invisible(char c) {
        int type = Character.getType(c);
        return Character.isISOControl(c) || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR || type == Character.FORMAT;
    }

    private static String quoted(String v) {
        StringBuilder out = new StringBuilder(v.length() + 2).append('"');
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (invisible(c)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
