package dev.magus.telemetry.ndjson;

import java.time.Instant;

/**
 * {@link Instant#toString()}'s text (ISO-8601, {@code DateTimeFormatter.ISO_INSTANT}), with the
 * date and time of day formatted by the JDK once per second and reused for the events of that
 * second: only the fraction is written here, in groups of three digits as {@code ISO_INSTANT}
 * writes it (none, 3, 6 or 9).
 */
final class InstantText {
    /** The last second formatted: its epoch second and its text up to the fraction. */
    private record Second(long epochSecond, String prefix) {
    }

    private static volatile Second last = new Second(Long.MIN_VALUE, "");

    private InstantText() {
    }

    static String of(Instant at) {
        long s = at.getEpochSecond();
        Second l = last;
        if (l.epochSecond() != s) {
            String whole = Instant.ofEpochSecond(s).toString();
            l = new Second(s, whole.substring(0, whole.length() - 1));
            last = l;
        }
        int nano = at.getNano();
        if (nano == 0) {
            return l.prefix() + 'Z';
        }
        StringBuilder b = new StringBuilder(l.prefix().length() + 11).append(l.prefix()).append('.');
        if (nano % 1_000_000 == 0) {
            digits(b, nano / 1_000_000, 3);
        } else if (nano % 1_000 == 0) {
            digits(b, nano / 1_000, 6);
        } else {
            digits(b, nano, 9);
        }
        return b.append('Z').toString();
    }

    private static void digits(StringBuilder b, int value, int width) {
        String v = Integer.toString(value);
        for (int i = v.length(); i < width; i++) {
            b.append('0');
        }
        b.append(v);
    }
}
