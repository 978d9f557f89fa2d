package dev.magus.policy.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.fs.Ruleset;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The narrowing against a real checkout in a temp dir, with the core's shape of rules. */
class LeaseNarrowingTest {
    @TempDir
    Path dir;
    Path ws;
    Path cache;
    Path temp;
    Path state;
    Path gitCommon;
    Ruleset core;

    @BeforeEach
    void setUp() throws IOException {
        dir = dir.toRealPath();
        ws = Files.createDirectories(dir.resolve("ws"));
        cache = Files.createDirectories(dir.resolve("home/.cache/magus"));
        state = dir.resolve("home/.local/state/magus");
        temp = Files.createDirectories(dir.resolve("tmp/magus-run-1"));
        gitCommon = Files.createDirectories(dir.resolve("main/.git"));
        Files.createDirectories(ws.resolve("src/main"));
        Files.createDirectories(ws.resolve("docs"));
        Files.createDirectories(ws.resolve(".git"));
        Files.writeString(ws.resolve("docs/a.md"), "a");
        Files.writeString(ws.resolve("README.md"), "r");
        Files.writeString(ws.resolve("notes.md"), "n");
        Files.writeString(ws.resolve("build.sh"), "b");
        core = Ruleset.of(List.of(
                new Rule(Path.of("/usr"), AccessMode.RX, "core:/usr"),
                new Rule(ws, AccessMode.RWX, "core:workspace"),
                new Rule(ws.resolve(".git"), AccessMode.RW, "core:git"),
                new Rule(gitCommon, AccessMode.RW, "core:git"),
                new Rule(cache, AccessMode.RW, "core:cache"),
                new Rule(temp, AccessMode.RWX, "core:temp")));
    }

    private LeaseScope scope() {
        return new LeaseScope(ws, cache, temp, state);
    }

    private static LeaseJob job(String... globs) {
        return new LeaseJob("7", true, true, Arrays.stream(globs).map(g -> WriteGlob.parse(g, "test")).toList());
    }

    private Narrowing.Narrowed narrowed(String... globs) {
        Narrowing n = LeaseNarrowing.plan(core, job(globs), scope(), Tree.real());
        assertThat(n).isInstanceOf(Narrowing.Narrowed.class);
        return (Narrowing.Narrowed) n;
    }

    @Test
    void insideTheCheckoutOnlyTheGlobsAreWritableAndReadsAndExecStay() {
        Narrowing.Narrowed n = narrowed("src/**");
        Ruleset r = n.ruleset();

        assertThat(r.granted(ws)).isEqualTo(AccessMode.RX);
        assertThat(r.granted(ws.resolve("src/main/A.java"))).isEqualTo(AccessMode.RWX);
        assertThat(r.permits(ws.resolve("README.md"), Access.WRITE)).isFalse();
        assertThat(r.permits(ws.resolve("README.md"), Access.READ)).isTrue();
        assertThat(r.permits(ws.resolve(".git/config"), Access.WRITE)).as("the checkout's own .git is inside it").isFalse();
        assertThat(r.permits(gitCommon.resolve("objects/x"), Access.WRITE)).as("outside the checkout keeps writes").isTrue();
        assertThat(r.permits(cache.resolve("x"), Access.WRITE)).isTrue();
        assertThat(r.permits(temp.resolve("x"), Access.WRITE)).isTrue();
        assertThat(r.granted(Path.of("/usr/bin/sh"))).isEqualTo(AccessMode.RX);
        assertThat(n.globs()).singleElement().satisfies(g -> assertThat(g.enforcement()).isEqualTo(Enforcement.EXACT));
    }

    @Test
    void theBindingLayerChecksEachGlobExactlyWhereTheKernelGrantsADirectory() {
        Narrowing.Narrowed n = narrowed("docs/*.md");

        assertThat(n.ruleset().permits(ws.resolve("docs/new.txt"), Access.WRITE)).as("kernel: all of docs/").isTrue();
        assertThat(n.permitsWrite(ws.resolve("docs/new.txt"))).as("binding: only *.md").isFalse();
        assertThat(n.permitsWrite(ws.resolve("docs/new.md"))).isTrue();
        assertThat(n.permitsWrite(ws.resolve("README.md"))).isFalse();
        assertThat(n.permitsWrite(cache.resolve("x"))).isTrue();
        assertThat(n.permitsWrite(gitCommon.resolve("HEAD"))).isTrue();
        assertThat(n.permitsWrite(dir.resolve("elsewhere"))).as("never granted before either").isFalse();
        assertThat(n.globs()).singleElement().satisfies(g -> {
            assertThat(g.enforcement()).isEqualTo(Enforcement.WIDER);
            assertThat(g.rules()).extracting(Rule::path).containsExactly(ws.resolve("docs"));
        });
    }

    @Test
    void eachGlobFormGetsTheKernelRulesTheTableSays() throws IOException {
        Files.createSymbolicLink(ws.resolve("link"), dir.resolve("home"));
        record Row(String glob, Enforcement enforcement, List<Path> rules) {
        }
        List<Row> table = List.of(
                new Row("src/**", Enforcement.EXACT, List.of(ws.resolve("src"))),
                new Row("src", Enforcement.EXACT, List.of(ws.resolve("src"))),
                new Row("**", Enforcement.EXACT, List.of(ws)),
                new Row("docs/*.md", Enforcement.WIDER, List.of(ws.resolve("docs"))),
                new Row("src/**/*.java", Enforcement.WIDER, List.of(ws.resolve("src"))),
                new Row("src/main/new/Gen.java", Enforcement.WIDER, List.of(ws.resolve("src/main"))),
                new Row("src/gen/**", Enforcement.WIDER, List.of(ws.resolve("src"))),
                new Row("README.md", Enforcement.NARROWER, List.of(ws.resolve("README.md"))),
                new Row("*.md", Enforcement.NARROWER, List.of(ws.resolve("README.md"), ws.resolve("notes.md"))),
                new Row("**/*.md", Enforcement.NARROWER, List.of(ws.resolve("README.md"), ws.resolve("docs/a.md"), ws.resolve("notes.md"))),
                new Row("new.txt", Enforcement.NARROWER, List.of()),
                new Row("gen/x", Enforcement.NARROWER, List.of()),
                new Row("link/**", Enforcement.NARROWER, List.of()),
                new Row("link", Enforcement.NARROWER, List.of()),
                new Row("link/.ssh/id_rsa", Enforcement.NARROWER, List.of()));
        for (Row row : table) {
            GlobGrant g = LeaseNarrowing.grant(WriteGlob.parse(row.glob(), "t"), "7", ws, Tree.real());
            assertThat(g.enforcement()).as(row.glob()).isEqualTo(row.enforcement());
            assertThat(g.rules()).as(row.glob()).extracting(Rule::path).containsExactlyInAnyOrderElementsOf(row.rules());
            assertThat(g.rules()).as(row.glob()).allSatisfy(r -> assertThat(r.mode()).isEqualTo(AccessMode.RW));
        }
    }

    @Test
    void nothingChangesForARootJobAnEndedJobOrOneWithoutWritePaths() {
        List<WriteGlob> src = List.of(WriteGlob.parse("src/**", "t"));
        assertThat(LeaseNarrowing.plan(core, new LeaseJob("1", true, false, src), scope(), Tree.real()))
                .isEqualTo(new Narrowing.Unchanged("job 1 is a root job"));
        assertThat(LeaseNarrowing.plan(core, new LeaseJob("2", false, true, src), scope(), Tree.real()))
                .isEqualTo(new Narrowing.Unchanged("job 2 has ended"));
        assertThat(LeaseNarrowing.plan(core, new LeaseJob("3", true, true, List.of()), scope(), Tree.real()))
                .isEqualTo(new Narrowing.Unchanged("job 3 has no write_paths"));
    }

    @Test
    void aWriteGrantAboveTheCheckoutIsRefusedNotWidened() {
        Ruleset wide = Ruleset.of(List.of(new Rule(dir, AccessMode.RW, "workspace:everything"),
                new Rule(ws, AccessMode.RWX, "core:workspace")));
        Narrowing n = LeaseNarrowing.plan(wide, job("src/**"), scope(), Tree.real());
        assertThat(n).isInstanceOfSatisfying(Narrowing.Refused.class, r -> {
            assertThat(r.diagnostic().code()).isEqualTo(Code.MGS2004);
            assertThat(r.diagnostic().message()).contains("workspace:everything").contains("job 7");
            assertThat(r.diagnostic().details()).containsEntry("job", "7");
        });
    }

    @Test
    void aWriteGrantReachingTheStateDirIsRefused() {
        Ruleset leaky = Ruleset.of(List.of(new Rule(ws, AccessMode.RWX, "core:workspace"),
                new Rule(state.resolve("checkouts"), AccessMode.RW, "workspace:oops")));
        Narrowing n = LeaseNarrowing.plan(leaky, job("src/**"), scope(), Tree.real());
        assertThat(n).isInstanceOfSatisfying(Narrowing.Refused.class,
                r -> assertThat(r.diagnostic().message()).contains("workspace:oops").contains("state dir"));
    }

    @Test
    void aRefusalTheLeaseCausedNamesTheJob() {
        Narrowing.Narrowed n = narrowed("src/**");
        var d = n.denial(Path.of("README.md"), ws.resolve("README.md"));
        assertThat(d.code()).isEqualTo(Code.MGS2002);
        assertThat(d.message()).contains("job 7");
        assertThat(d.details()).containsEntry("job", "7").containsEntry("write_paths", "src/**");

        var kernel = dev.magus.events.Diagnostic.of(Code.MGS2002, "write denied", ws.resolve("x").toString(),
                dev.magus.events.Operation.WRITE, dev.magus.events.Layer.KERNEL, "inferred:stderr");
        assertThat(n.attribute(kernel).details()).containsEntry("job", "7");
        var elsewhere = dev.magus.events.Diagnostic.of(Code.MGS2002, "write denied", dir.resolve("home/.bashrc").toString(),
                dev.magus.events.Operation.WRITE, dev.magus.events.Layer.KERNEL, "inferred:stderr");
        assertThat(n.attribute(elsewhere)).isEqualTo(elsewhere);
    }

    @Test
    void theSearchForExistingMatchesIsBoundedAndThenGrantsLessNeverMore() throws IOException {
        Path many = Files.createDirectories(ws.resolve("many"));
        for (int i = 0; i < LeaseNarrowing.MAX_RULES + 10; i++) {
            Files.writeString(many.resolve("f" + i + ".txt"), "");
        }
        GlobGrant g = LeaseNarrowing.grant(WriteGlob.parse("**/*.txt", "t"), "7", ws, Tree.real());
        assertThat(g.rules()).hasSize(LeaseNarrowing.MAX_RULES);
        assertThat(g.why()).contains("stopped at its bound");
        assertThat(g.enforcement()).isEqualTo(Enforcement.NARROWER);
    }
}
