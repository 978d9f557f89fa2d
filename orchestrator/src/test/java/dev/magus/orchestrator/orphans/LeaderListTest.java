package dev.magus.orchestrator.orphans;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The fast form of the quiet check, on the leader's list alone: when it answers, and that it doubts otherwise. */
class LeaderListTest {
    static final long LEADER = 4242;
    /** A live JVM leader's stat as Linux 6.18 prints it (flags 0x400000, PF_RANDOMIZE). */
    static final String STEADY = LEADER + " (java) S 4100 4242 4100 34816 4242 4194304 2517 0 0 0 9 3 0 0 20 0 30 0 1 0 0";

    /** A leader whose answers are given in turn, recording what was read in which order. */
    static final class Fake implements LeaderList.Reader {
        final Deque<Optional<byte[]>> lists;
        final Optional<byte[]> stat;
        final List<String> log = new ArrayList<>();
        /** The spawners' children, read in turn; two empty reads unless set. */
        Deque<Optional<List<Long>>> spawners = new ArrayDeque<>(List.of(Optional.of(List.of()), Optional.of(List.of())));

        Fake(Optional<byte[]> stat, String... lists) {
            this.stat = stat;
            this.lists = new ArrayDeque<>(Arrays.stream(lists).map(l -> Optional.of(ascii(l))).toList());
        }

        @Override
        public Optional<byte[]> children() {
            log.add("children");
            return lists.isEmpty() ? Optional.empty() : lists.poll();
        }

        @Override
        public Optional<byte[]> stat() {
            log.add("stat");
            return stat;
        }

        @Override
        public long leader() {
            return LEADER;
        }

        @Override
        public Optional<List<Long>> spawners() {
            log.add("spawners");
            return spawners.isEmpty() ? Optional.empty() : spawners.poll();
        }
    }

    @Test
    void aSteadyLeaderIsAliveAndNotExiting() {
        assertThat(LeaderList.steady(ascii(STEADY), LEADER)).isTrue();
        // PF_EXITING set: do_exit has begun, though the state still reads R or S.
        assertThat(LeaderList.steady(ascii(STEADY.replace(" 4194304 ", " 4194308 ")), LEADER)).isFalse();
        assertThat(LeaderList.steady(ascii(STEADY.replace(" S ", " R ").replace(" 4194304 ", " 4194308 ")), LEADER)).isFalse();
        assertThat(LeaderList.steady(ascii(STEADY.replace(" S ", " Z ")), LEADER)).isFalse();
        assertThat(LeaderList.steady(ascii(STEADY.replace(" S ", " X ")), LEADER)).isFalse();
        // Another thread's stat, a name with ") " in it, and malformed texts.
        assertThat(LeaderList.steady(ascii(STEADY), LEADER + 1)).isFalse();
        assertThat(LeaderList.steady(ascii(STEADY.replace("(java)", "(a) Z 1 2 3 4 5 4 (b)")), LEADER)).isTrue();
        assertThat(LeaderList.steady(ascii(STEADY.replace("(java)", "(a) S 1 2 3 4 5 0 (b)").replace(" 4194304 ", " 5 ")),
                LEADER)).isFalse();
        assertThat(LeaderList.steady(ascii(LEADER + " (java) S 1 2"), LEADER)).isFalse();
        assertThat(LeaderList.steady(ascii(STEADY.replace(" 4194304 ", " x ")), LEADER)).isFalse();
        assertThat(LeaderList.steady(ascii(""), LEADER)).isFalse();
    }

    @Test
    void quietWhenTwoReadsAgreeTheLeaderIsSteadyAfterThemAndEveryChildIsVouchedFor() {
        Fake f = new Fake(Optional.of(ascii(STEADY)), "10 11 ", "10 11 ");
        assertThat(LeaderList.quiet(f, Set.of(10L, 11L)::contains)).contains(true);
        assertThat(f.log).as("the leader's state is read after the last read of its list")
                .containsExactly("spawners", "children", "spawners", "children", "stat");
        assertThat(LeaderList.quiet(new Fake(Optional.of(ascii(STEADY)), "", ""), pid -> false)).contains(true);
    }

    @Test
    void aChildNobodyVouchesForIsNotQuietAtOnce() {
        Fake f = new Fake(Optional.of(ascii(STEADY)), "10 12 ", "10 12 ");
        assertThat(LeaderList.quiet(f, Set.of(10L)::contains)).contains(false);
        assertThat(f.log).containsExactly("spawners", "children");
        // Whatever the leader's state: "not quiet" only makes the pass over /proc run.
        assertThat(LeaderList.quiet(new Fake(Optional.empty(), "12 "), pid -> false)).contains(false);
    }

    @Test
    void anyDoubtIsNoAnswer() {
        Set<Long> all = Set.of(10L, 11L, 12L);
        // The reads differ (a child came or went, or one was skipped while another was reaped).
        assertThat(LeaderList.quiet(new Fake(Optional.of(ascii(STEADY)), "10 11 ", "10 "), all::contains)).isEmpty();
        assertThat(LeaderList.quiet(new Fake(Optional.of(ascii(STEADY)), "10 11 ", "11 10 "), all::contains)).isEmpty();
        // A list that cannot be read, or not whole, or is not a list.
        assertThat(LeaderList.quiet(new Fake(Optional.of(ascii(STEADY))), all::contains)).isEmpty();
        assertThat(LeaderList.quiet(new Fake(Optional.of(ascii(STEADY)), "10 "), all::contains)).isEmpty();
        assertThat(LeaderList.quiet(new Fake(Optional.of(ascii(STEADY)), "10 x", "10 x"), all::contains)).isEmpty();
        // The leader exiting, dead, or its state unreadable: its children may be elsewhere.
        String exiting = STEADY.replace(" 4194304 ", " 4194308 ");
        assertThat(LeaderList.quiet(new Fake(Optional.of(ascii(exiting)), "10 ", "10 "), all::contains)).isEmpty();
        assertThat(LeaderList.quiet(new Fake(Optional.of(ascii(STEADY.replace(" S ", " Z "))), "10 ", "10 "), all::contains))
                .isEmpty();
        assertThat(LeaderList.quiet(new Fake(Optional.empty(), "10 ", "10 "), all::contains)).isEmpty();
    }

    /**
     * The lists of the threads that spawned for the launcher are read too, before the leader's:
     * a run leader's CLONE_PARENT child is theirs until they end.
     */
    @Test
    void theSpawnersListsAreReadTooAndMustAgree() {
        Set<Long> all = Set.of(10L, 11L, 20L);
        Fake f = new Fake(Optional.of(ascii(STEADY)), "10 ", "10 ");
        f.spawners = new ArrayDeque<>(List.of(Optional.of(List.of(20L)), Optional.of(List.of(20L))));
        assertThat(LeaderList.quiet(f, all::contains)).contains(true);
        f = new Fake(Optional.of(ascii(STEADY)), "10 ", "10 ");
        f.spawners = new ArrayDeque<>(List.of(Optional.of(List.of(20L, 21L)), Optional.of(List.of(20L, 21L))));
        assertThat(LeaderList.quiet(f, all::contains)).as("a spawner's child nobody vouches for").contains(false);
        f = new Fake(Optional.of(ascii(STEADY)), "10 ", "10 ");
        f.spawners = new ArrayDeque<>(List.of(Optional.of(List.of(20L)), Optional.of(List.of())));
        assertThat(LeaderList.quiet(f, all::contains)).as("the spawners' lists changed").isEmpty();
        f = new Fake(Optional.of(ascii(STEADY)), "10 ", "10 ");
        f.spawners = new ArrayDeque<>(List.of(Optional.empty()));
        assertThat(LeaderList.quiet(f, all::contains)).as("a spawner unreadable, or unknown").isEmpty();
    }

    /**
     * The register is asked again after the last read: a pid it
     * vouched for after the first read but no longer after the second is not quiet.
     */
    @Test
    void aPidNoLongerVouchedForAfterTheLastReadIsNotQuiet() {
        AtomicInteger asked = new AtomicInteger();
        Optional<Boolean> quiet = LeaderList.quiet(new Fake(Optional.of(ascii(STEADY)), "10 ", "10 "),
                pid -> asked.incrementAndGet() == 1);
        assertThat(asked).hasValue(2);
        assertThat(quiet).contains(false);
    }

    /**
     * The stray search's candidates: the spawners' children and the leader's, the leader's stat
     * read after its list; a leader exiting, a list unreadable or a spawner unknown is no answer.
     */
    @Test
    void theStraySearchReadsTheSpawnersAndTheLeaderOnly() {
        Fake f = new Fake(Optional.of(ascii(STEADY)), "10 11 ");
        f.spawners = new ArrayDeque<>(List.of(Optional.of(List.of(20L))));
        assertThat(LeaderList.children(f)).contains(List.of(20L, 10L, 11L));
        assertThat(f.log).containsExactly("spawners", "children", "stat");

        String exiting = STEADY.replace(" 4194304 ", " 4194308 ");
        assertThat(LeaderList.children(new Fake(Optional.of(ascii(exiting)), "10 "))).isEmpty();
        assertThat(LeaderList.children(new Fake(Optional.of(ascii(STEADY)), "10 x"))).isEmpty();
        assertThat(LeaderList.children(new Fake(Optional.empty(), "10 "))).isEmpty();
        Fake unknown = new Fake(Optional.of(ascii(STEADY)), "10 ");
        unknown.spawners = new ArrayDeque<>();
        assertThat(LeaderList.children(unknown)).isEmpty();
    }

    /** One read of a seq file gives at most a page; a read that may have been cut there is a doubt. */
    @Test
    void aReadThatMayHaveBeenCutAtAPageIsADoubt() {
        ByteBuffer buf = ByteBuffer.allocate(OneRead.SIZE);
        buf.put(new byte[100]);
        assertThat(OneRead.text(100, buf)).hasValueSatisfying(t -> assertThat(t).hasSize(100));
        buf.clear();
        buf.put(new byte[4092]);
        assertThat(OneRead.text(4092, buf)).as("682 pids of 5 digits: what one read gives of 700").isEmpty();
        buf.clear();
        assertThat(OneRead.text(OneRead.SIZE, buf.position(OneRead.SIZE))).isEmpty();
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
