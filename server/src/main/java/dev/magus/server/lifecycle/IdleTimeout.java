package dev.magus.server.lifecycle;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.MagusEnv;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long the server waits with no connection before it exits: {@code --idle-timeout} of
 * {@code magus server} and {@code magus server start}, else {@value MagusEnv#SERVER_IDLE_TIMEOUT}
 * in the environment, else {@link #DEFAULT}. Written as a whole number with an optional unit
 * ({@code ms}, {@code s}, {@code m}, {@code h}; none is seconds); {@code 0} or {@code never}
 * keeps the server until it is stopped.
 *
 * @param value the timeout; zero for never
 */
public record IdleTimeout(Duration value) {
    public static final IdleTimeout DEFAULT = new IdleTimeout(Duration.ofMinutes(30));
    public static final IdleTimeout NEVER = new IdleTimeout(Duration.ZERO);

    private static final Pattern FORM = Pattern.compile("(\\d{1,9})(ms|s|m|h)?");

    public IdleTimeout {
        if (value.isNegative()) {
            throw new IllegalArgumentException("a negative idle timeout: " + value);
        }
    }

    public boolean never() {
        return value.isZero();
    }

    /**
     * The timeout {@code text} says, from {@code origin} (named in the refusal).
     *
     * @throws SandboxException MGS2004 for anything else than the form in the class comment
     */
    public static IdleTimeout parse(String text, String origin) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("never")) {
            return NEVER;
        }
        Matcher m = FORM.matcher(t);
        if (!m.matches()) {
            throw new SandboxException(Diagnostic.of(Code.MGS2004, "the server's idle timeout '" + text + "' (" + origin
                    + ") is not a duration: write a whole number with ms, s, m or h (none is seconds), or 0 or never"
                    + " to keep the server until it is stopped", text, Operation.NONE, Layer.POLICY, origin));
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return new IdleTimeout(switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofSeconds(n);
        });
    }

    /** The option's value when given, else the environment's setting, else {@link #DEFAULT}. */
    public static IdleTimeout of(Optional<String> option, Map<String, String> env) {
        if (option.isPresent()) {
            return parse(option.get(), "--idle-timeout");
        }
        String set = env.get(MagusEnv.SERVER_IDLE_TIMEOUT);
        return set == null || set.isBlank() ? DEFAULT : parse(set, MagusEnv.SERVER_IDLE_TIMEOUT);
    }

    /** As a person writes it back: {@code 30m}, {@code 90s}, {@code never}. */
    public String spelling() {
        if (never()) {
            return "never";
        }
        long ms = value.toMillis();
        if (ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        } else if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        } else if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
