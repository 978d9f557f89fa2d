package dev.magus.telemetry.log;

import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.events.Severity;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.regex.Pattern;
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

    private static final Pattern BARE = Pattern.compile("[^\\s\"=\\\\\\p{Cntrl}]+");

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

    /** The line logged for {@code event}. Values with spaces, quotes, '=' or nothing in them are quoted; msg always. */
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
        return BARE.matcher(v).matches() ? v : quoted(v);
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
                    if (c < 0x20) {
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
