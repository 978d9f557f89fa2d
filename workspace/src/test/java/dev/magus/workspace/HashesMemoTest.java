package dev.magus.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** {@link Hashes#of} gives its last answer again only for an equal text, and it is then the digest. */
class HashesMemoTest {
    @Property(tries = 300)
    void anySequenceOfTextsHashesAsFreshDigests(@ForAll @Size(min = 1, max = 6) List<String> texts) {
        for (String t : texts) {
            assertThat(Hashes.of(t)).as(t).isEqualTo(Hashes.digest(t));
            assertThat(Hashes.of(t)).as("asked twice: " + t).isEqualTo(Hashes.digest(t));
        }
    }

    @Test
    void moreTextsThanItKeepsStillHashFresh() {
        for (int i = 0; i < Hashes.LIMIT * 2 + 3; i++) {
            String t = "/ws/" + i;
            assertThat(Hashes.of(t)).isEqualTo(Hashes.digest(t));
        }
        assertThat(Hashes.of("/ws/0")).isEqualTo(Hashes.digest("/ws/0"));
    }

    @Test
    void anotherTextIsAnotherHash() {
        String a = Hashes.of("/c1/magus");
        String b = Hashes.of("/c2/magus");
        assertThat(b).isNotEqualTo(a).isEqualTo(Hashes.digest("/c2/magus"));
        assertThat(Hashes.of("/c1/magus")).isEqualTo(a).matches("[0-9a-f]{32}");
        assertThat(Hashes.of("/c1/magus/")).isNotEqualTo(a);
    }
}
