package dev.magus.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class HashesTest {
    @Test
    void aKnownDigestTheFirstTimeAndFromTheMemo() {
        // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223 b00361a396177a9cb410ff61f20015ad
        assertEquals("ba7816bf8f01cfea414140de5dae2223", Hashes.of("abc"));
        assertEquals("ba7816bf8f01cfea414140de5dae2223", Hashes.of("abc"));
        assertEquals(Hashes.digest("roots\0/w\0entries"), Hashes.of("roots\0/w\0entries"));
    }

    @Test
    void pastItsBoundTheMemoStillAnswersExactly() {
        for (int i = 0; i < Hashes.MEMO_SIZE * 3; i++) {
            String t = "/ws/" + i;
            assertEquals(Hashes.digest(t), Hashes.of(t));
        }
        assertNotEquals(Hashes.of("/ws/1"), Hashes.of("/ws/2"));
        assertEquals(Hashes.digest("/ws/1"), Hashes.of("/ws/1"));
    }
}
