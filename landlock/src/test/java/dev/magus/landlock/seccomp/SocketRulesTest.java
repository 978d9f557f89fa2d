package dev.magus.landlock.seccomp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.net.NetworkMode;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The rules as a value: what the filter cache keys on (equal rules, one filter; unequal ones, their own). */
class SocketRulesTest {
    private static final List<SocketRules> ALL = List.of(new SocketRules(false, false), new SocketRules(false, true),
            new SocketRules(true, false), new SocketRules(true, true));

    @Test
    void rules_are_equal_exactly_when_both_fields_are() {
        for (SocketRules a : ALL) {
            SocketRules copy = new SocketRules(a.unix(), a.tcpOnly());
            assertThat(a).isEqualTo(copy).hasSameHashCodeAs(copy);
            for (SocketRules b : ALL) {
                assertThat(a.equals(b)).as("%s against %s", a, b).isEqualTo(a.unix() == b.unix() && a.tcpOnly() == b.tcpOnly());
            }
            assertThat(a).isNotEqualTo(null).isNotEqualTo("SocketRules[unix=" + a.unix() + ", tcpOnly=" + a.tcpOnly() + "]");
        }
    }

    @Test
    void the_four_rules_hash_apart_and_the_named_ones_are_among_them() {
        Set<Integer> hashes = new HashSet<>();
        ALL.forEach(r -> hashes.add(r.hashCode()));
        assertThat(hashes).hasSize(4);
        assertThat(new HashSet<>(ALL)).contains(SocketRules.NOTHING, SocketRules.of(NetworkMode.NONE, false),
                SocketRules.of(NetworkMode.OPEN, true)).hasSize(4);
    }
}
