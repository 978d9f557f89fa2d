package dev.magus.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.env.Allowlist;
import dev.magus.events.Code;
import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.fs.Ruleset;
import dev.magus.events.Mode;
import dev.magus.policy.path.RandomTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cached check against {@link Policy#check} (uncached): the same verdicts on random trees of
 * directories, files and links, asked again and again; what invalidation restores; concurrency.
 */
class PolicyCheckerTest {

    private static final String[] NAMES = {"a", "b", "c", "mise.toml"};
    private static final AccessMode[] MODES = {AccessMode.R, AccessMode.RW, AccessMode.RX, AccessMode.RWX};

    @Property(tries = 120)
    void givesExactlyTheUncachedVerdicts(@ForAll long seed) throws IOException {
        Random rnd = new Random(seed);
        Path base = Files.createTempDirectory("checker-prop").toRealPath();
        Path root = Files.createDirectories(base.resolve("x/y/tree"));
        try {
            List<String> description = new ArrayList<>();
            List<Path> entries = RandomTree.build(rnd, NAMES, root, description);
            Policy policy = randomPolicy(rnd, root, entries);
            // One with room to spare, one so small that it keeps overflowing and starting over.
            List<PolicyChecker> checkers = List.of(PolicyChecker.of(policy), PolicyChecker.caching(policy, 4));
            List<Path[]> queries = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                Path cwd = entries.isEmpty() || rnd.nextInt(3) == 0 ? root : entries.get(rnd.nextInt(entries.size()));
                Path request = rnd.nextBoolean()
                        ? Path.of(root + "/" + RandomTree.components(rnd, NAMES, 1 + rnd.nextInt(5)))
                        : Path.of(RandomTree.components(rnd, NAMES, 1 + rnd.nextInt(4)));
                queries.add(new Path[] {request, cwd});
            }
            // Three rounds, so that answers come from memory in the later ones.
            for (int round = 0; round < 3; round++) {
                for (Path[] q : queries) {
                    for (Access op : Access.values()) {
                        Verdict expected = policy.check(op, q[0], q[1]);
                        for (PolicyChecker c : checkers) {
                            assertThat(c.check(op, q[0], q[1]))
                                    .as("%s %s in %s, round %d, tree %s", op, q[0], q[1], round, description)
                                    .isEqualTo(expected);
                        }
                        if (round == 0) {
                            Statistics.collect(outcome(expected));
                        }
                    }
                }
            }
        } finally {
            RandomTree.delete(base);
        }
        Statistics.coverage(coverage -> {
            coverage.check("allowed").count(c -> c > 500);
            coverage.check(Code.MGS2001).count(c -> c > 100);
            coverage.check(Code.MGS2002).count(c -> c > 100);
            coverage.check(Code.MGS2007).count(c -> c > 100);
            coverage.check(Code.MGS2009).count(c -> c > 5);
        });
    }

    private static Object outcome(Verdict v) {
        return v instanceof Verdict.Denied d ? d.diagnostic().code() : "allowed";
    }

    /** Rules on random entries of the tree and on random spellings beneath it, resolved as a builder would. */
    private static Policy randomPolicy(Random rnd, Path root, List<Path> entries) {
        List<Rule> rules = new ArrayList<>();
        int n = 1 + rnd.nextInt(5);
        for (int i = 0; i < n; i++) {
            Path p = entries.isEmpty() || rnd.nextInt(4) == 0
                    ? root.resolve(NAMES[rnd.nextInt(NAMES.length)])
                    : entries.get(rnd.nextInt(entries.size()));
            new dev.magus.policy.path.PathResolver().resolve(p).resolvedPath()
                    .ifPresent(r -> rules.add(new Rule(r, MODES[rnd.nextInt(MODES.length)], "test:" + rules.size())));
        }
        return policy(root, rules);
    }

    private static Policy policy(Path root, List<Rule> rules) {
        return new Policy(Mode.BEST_EFFORT, root, root.resolve("home"), Ruleset.of(rules), Allowlist.EMPTY,
                ControlFiles.of(root, List.of()), List.of());
    }

    // ---- invalidation, on a fixed tree: ws (rw), outside (no rule) ----

    @TempDir
    Path tmp;
    Path root;
    Path ws;
    Path outside;
    Policy policy;

    @BeforeEach
    void fixedTree() throws IOException {
        root = tmp.toRealPath();
        ws = Files.createDirectories(root.resolve("ws"));
        outside = Files.createDirectories(root.resolve("outside"));
        Files.writeString(ws.resolve("f"), "in\n");
        Files.writeString(outside.resolve("f"), "out\n");
        policy = policy(root, List.of(new Rule(ws, AccessMode.RW, "test:ws")));
    }

    @Test
    void aRepointedLinkIsSeenAfterInvalidatingIt() throws IOException {
        Path link = Files.createSymbolicLink(ws.resolve("link"), ws);
        PolicyChecker checker = PolicyChecker.of(policy);
        assertThat(checker.check(Access.READ, Path.of("link/f"), ws)).isEqualTo(new Verdict.Allowed(ws.resolve("f")));

        Files.delete(link);
        Files.createSymbolicLink(link, outside);
        // Remembered: the change is not seen until invalidated (which is why the contract asks for it).
        assertThat(checker.check(Access.READ, Path.of("link/f"), ws).allowed()).isTrue();

        checker.invalidate(link);
        Verdict after = checker.check(Access.READ, Path.of("link/f"), ws);
        assertThat(after).isEqualTo(policy.check(Access.READ, Path.of("link/f"), ws));
        assertThat(((Verdict.Denied) after).diagnostic().code()).isEqualTo(Code.MGS2001);
        assertThat(after.allowed()).isFalse();
    }

    @Test
    void invalidatingALinkInTheMiddleOfAChainReachesVerdictsThroughIt() throws IOException {
        // ws/first -> ../hop/second -> ws: the changed link is neither the request nor under its result.
        Path hop = Files.createDirectories(root.resolve("hop"));
        Path second = Files.createSymbolicLink(hop.resolve("second"), ws);
        Files.createSymbolicLink(ws.resolve("first"), Path.of("../hop/second"));
        PolicyChecker checker = PolicyChecker.of(policy);
        Path request = ws.resolve("first/f");
        assertThat(checker.check(Access.WRITE, request, ws).allowed()).isTrue();

        Files.delete(second);
        Files.createSymbolicLink(second, outside);
        checker.invalidate(second);
        assertThat(checker.check(Access.WRITE, request, ws))
                .isEqualTo(policy.check(Access.WRITE, request, ws))
                .matches(v -> !v.allowed());
    }

    @Test
    void aDirectoryReplacedByALinkIsSeenAfterInvalidatingEverything() throws IOException {
        Path sub = Files.createDirectories(ws.resolve("sub"));
        Files.writeString(sub.resolve("f"), "x\n");
        PolicyChecker checker = PolicyChecker.of(policy);
        assertThat(checker.check(Access.WRITE, sub.resolve("f"), root).allowed()).isTrue();

        Files.delete(sub.resolve("f"));
        Files.delete(sub);
        Files.createSymbolicLink(sub, outside);
        checker.invalidate();
        assertThat(checker.check(Access.WRITE, sub.resolve("f"), root))
                .isEqualTo(policy.check(Access.WRITE, sub.resolve("f"), root))
                .matches(v -> !v.allowed());
    }

    @Test
    void creatingWhatWasMissingNeedsNoInvalidation() throws IOException {
        PolicyChecker checker = PolicyChecker.of(policy);
        Path request = ws.resolve("new/file");
        assertThat(checker.check(Access.WRITE, request, ws)).isEqualTo(new Verdict.Allowed(request));

        // What did not exist is asked again: a link created there is followed at once.
        Files.createSymbolicLink(ws.resolve("new"), outside);
        assertThat(checker.check(Access.WRITE, request, ws))
                .isEqualTo(policy.check(Access.WRITE, request, ws))
                .matches(v -> !v.allowed());
    }

    @Test
    void anAbsoluteRequestIsTheSameQuestionFromEveryDirectory() {
        PolicyChecker checker = PolicyChecker.of(policy);
        Verdict fromWs = checker.check(Access.READ, outside.resolve("f"), ws);
        Verdict fromRoot = checker.check(Access.READ, outside.resolve("f"), root);
        assertThat(fromRoot).isEqualTo(fromWs).isEqualTo(policy.check(Access.READ, outside.resolve("f"), root));
        // A relative one is not: the same spelling from two directories reaches two files.
        assertThat(checker.check(Access.READ, Path.of("f"), ws).allowed()).isTrue();
        assertThat(checker.check(Access.READ, Path.of("f"), outside).allowed()).isFalse();
    }

    @Test
    void aCacheNeedsRoom() {
        assertThatThrownBy(() -> PolicyChecker.caching(policy, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void concurrentChecksAndInvalidationsAgreeWithTheUncachedCheck() throws Exception {
        Path sub = Files.createDirectories(ws.resolve("a/b"));
        Files.createSymbolicLink(ws.resolve("up"), Path.of("a/b/../.."));
        Files.createSymbolicLink(ws.resolve("out"), outside);
        List<Path> requests = List.of(ws.resolve("f"), sub, ws.resolve("up/up/up/f"), ws.resolve("out/f"),
                Path.of("out/../f"), Path.of("a/b/new"), outside.resolve("f"), Path.of("up/a/b"));
        List<Verdict[]> expected = new ArrayList<>();
        for (Path r : requests) {
            Verdict[] byOp = new Verdict[Access.values().length];
            for (Access op : Access.values()) {
                byOp[op.ordinal()] = policy.check(op, r, ws);
            }
            expected.add(byOp);
        }
        PolicyChecker checker = PolicyChecker.caching(policy, 8);
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            Future<?> invalidator = pool.submit(() -> {
                Random rnd = new Random(7);
                while (!stop.get()) {
                    if (rnd.nextBoolean()) {
                        checker.invalidate();
                    } else {
                        checker.invalidate(ws.resolve("a"));
                    }
                    Thread.onSpinWait();
                }
            });
            List<Future<Integer>> checkers = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                int seed = t;
                checkers.add(pool.submit(() -> {
                    Random rnd = new Random(seed);
                    int n = 0;
                    for (; n < 20_000; n++) {
                        int i = rnd.nextInt(requests.size());
                        Access op = Access.values()[rnd.nextInt(3)];
                        assertThat(checker.check(op, requests.get(i), ws)).isEqualTo(expected.get(i)[op.ordinal()]);
                    }
                    return n;
                }));
            }
            for (Future<Integer> f : checkers) {
                assertThat(f.get(2, TimeUnit.MINUTES)).isEqualTo(20_000);
            }
            stop.set(true);
            invalidator.get(1, TimeUnit.MINUTES);
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }
}
