package dev.magus.telemetry.ndjson;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The event time's text is Instant.toString's, byte for byte, whatever second or fraction. */
class InstantTextTest {
    private static void same(Instant i) {
        assertThat(InstantText.of(i)).as("%s", i).isEqualTo(i.toString());
    }

    @Test
    void everyFractionWidthAndTheEdgesOfAMinute() {
        long s = Instant.parse("2026-12-02T20:00:00Z").getEpochSecond();
        for (int nano : new int[] {0, 1, 10, 999, 1_000, 10_000, 999_000, 1_000_000, 10_000_000, 100_000_000, 120_000_000,
                123_456_000, 123_456_789, 999_999_999, 500_000_000, 5_000}) {
            same(Instant.ofEpochSecond(s, nano));
            same(Instant.ofEpochSecond(s + 59, nano));
            same(Instant.ofEpochSecond(s - 1, nano));
        }
        same(Instant.EPOCH);
        same(Instant.ofEpochSecond(-1, 5));
        same(Instant.parse("+12026-01-01T00:00:00.5Z"));
    }

    @Test
    void manyInstantsInAndAcrossSeconds() {
        SplittableRandom r = new SplittableRandom(15);
        Instant now = Instant.now();
        for (int i = 0; i < 20_000; i++) {
            same(now.plusNanos(r.nextLong(0, 5_000_000_000L)));
            same(Instant.ofEpochSecond(r.nextLong(-5_000_000_000L, 50_000_000_000L), r.nextInt(1_000_000_000)));
            same(Instant.ofEpochSecond(r.nextLong(0, 4_000_000_000L), r.nextInt(1_000) * 1_000_000));
        }
        assertThat(InstantText.of(now)).isEqualTo(now.toString());
    }
}
