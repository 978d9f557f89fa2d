package dev.magus.landlock.compile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.env.Allowlist;
import dev.magus.events.Mode;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.sys.Natives;
import dev.magus.policy.HostFacts;
import dev.magus.policy.Policy;
import dev.magus.policy.PolicyBuilder;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.MergedDecl;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.decl.Site;
import dev.magus.policy.path.Filesystem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * The policy built the fast way (the kernel asked first, a plain path answered by
 * {@code openat2(RESOLVE_NO_SYMLINKS)} alone, each path resolved once per build) compiles to
 * exactly the ruleset of the policy built by the walk alone, which never asks the kernel: the
 * same rules and notes, the same grants (path, kind, rights, origin) and skips, on random trees
 * of directories, files and links (inside the workspace too, where a link to outside is refused
 * as planted) declared with random spellings and modes.
 */
class SameRulesPropertyTest {

    private static final String[] NAMES = {"a", "b", "c", "d e"};
    private static final String[] MODES = {"ro", "rw", "rx", "rwx"};

    private static int abi;

    @BeforeContainer
    static void linuxWithLandlock() {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        abi = linux ? LandlockProbe.kernel().abi() : 0;
        String why = "skipped: needs Linux with Landlock (ABI " + abi + ")";
        if (abi == 0) {
            System.err.println(why);
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(abi > 0, why);
        Natives.require();
    }

    /** The real filesystem with no kernel lookup: every resolution walks. */
    private static final Filesystem WALK_ONLY = new Filesystem() {
        @Override
        public Entry lstat(Path path) {
            return Filesystem.real().lstat(path);
        }

        @Override
        public Optional<String> read(Path file, int maxBytes) {
            return Filesystem.real().read(file, maxBytes);
        }
    };

    @Property(tries = 60)
    void theFastPolicyCompilesToTheWalksRuleset(@ForAll long seed) throws IOException {
        Random rnd = new Random(seed);
        Path base = Files.createTempDirectory("same-rules").toRealPath();
        try {
            Path home = Files.createDirectories(base.resolve("home/u"));
            Path ws = Files.createDirectories(base.resolve("ws"));
            Path temp = Files.createDirectories(base.resolve("run/magus-run-1"));
            Path install = Files.createDirectories(base.resolve("opt/magus/lib"));
            Files.createDirectories(home.resolve(".cache/magus"));
            Path tree = Files.createDirectories(base.resolve("x/y/tree"));
            List<String> description = new ArrayList<>();
            List<Path> entries = new ArrayList<>(build(rnd, tree, tree, description));
            // Links in the workspace too, some of them out of it (planted, refused).
            entries.addAll(build(rnd, ws, rnd.nextBoolean() ? tree : ws, description));
            List<SandboxAllow> allow = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                Path root = rnd.nextInt(3) == 0 ? ws : tree;
                String spelled = i < entries.size() && rnd.nextBoolean() ? entries.get(i).toString()
                        : root + "/" + components(rnd, 1 + rnd.nextInt(4));
                allow.add(SandboxAllow.declare(Optional.of("<" + i + ">"), Optional.empty(), Optional.empty(),
                        Optional.of(spelled), Optional.of(MODES[rnd.nextInt(MODES.length)]), DeclLayer.spell("p"),
                        Site.of("spell:p", "sandbox.allow[" + i + "]")));
            }
            HostFacts facts = HostFacts.linux(Map.of("HOME", home.toString(), "PATH", "/usr/bin:/bin"), home,
                    List.of(install), temp);
            MergedDecl declared = new MergedDecl(allow, Allowlist.EMPTY);
            Policy fast = new PolicyBuilder(facts).policy(Mode.REQUIRED, ws, declared);
            Policy walked = new PolicyBuilder(facts, WALK_ONLY).policy(Mode.REQUIRED, ws, declared);
            String context = "tree " + description + ", declared " + allow;
            assertThat(fast.rules()).as(context).isEqualTo(walked.rules());
            assertThat(fast.notes()).as(context).isEqualTo(walked.notes());
            try (CompiledRuleset a = CompiledRuleset.compile(fast.rules(), abi);
                    CompiledRuleset b = CompiledRuleset.compile(walked.rules(), abi)) {
                assertThat(a.grants()).as(context).isEqualTo(b.grants());
                assertThat(a.skipped()).as(context).isEqualTo(b.skipped());
                assertThat(a.handledFs()).isEqualTo(b.handledFs());
                Statistics.collect(a.grants().size() > 20 ? "more than 20 grants" : "up to 20 grants");
            }
            Statistics.collect(fast.notes().isEmpty() ? "no note" : "notes");
        } finally {
            delete(base);
        }
    }

    /** 3 to 10 entries under {@code root}; links point into {@code targets}; says what it made in {@code tree}. */
    private static List<Path> build(Random rnd, Path root, Path targets, List<String> tree) throws IOException {
        List<Path> dirs = new ArrayList<>(List.of(root));
        List<Path> entries = new ArrayList<>();
        int n = 3 + rnd.nextInt(8);
        for (int i = 0; i < n; i++) {
            Path p = dirs.get(rnd.nextInt(dirs.size())).resolve(NAMES[rnd.nextInt(NAMES.length)]);
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            int kind = rnd.nextInt(10);
            if (kind < 4) {
                Files.createDirectory(p);
                dirs.add(p);
                tree.add(p + "/");
            } else if (kind < 6) {
                Files.writeString(p, "x");
                tree.add(p.toString());
            } else {
                String target = rnd.nextBoolean() ? targets + "/" + components(rnd, 1 + rnd.nextInt(3))
                        : components(rnd, 1 + rnd.nextInt(3));
                Files.createSymbolicLink(p, Path.of(target));
                tree.add(p + " -> " + target);
            }
            entries.add(p);
        }
        return entries;
    }

    private static String components(Random rnd, int count) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                sb.append('/');
            }
            int pick = rnd.nextInt(NAMES.length + 2);
            sb.append(pick < NAMES.length ? NAMES[pick] : pick == NAMES.length ? "." : "..");
        }
        return sb.toString();
    }

    private static void delete(Path base) throws IOException {
        try (Stream<Path> all = Files.walk(base)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
