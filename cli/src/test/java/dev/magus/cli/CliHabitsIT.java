package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.cli.BinMagus.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a new user tries first, through {@code bin/magus}: stdin reaches the child,
 * an unconfined run says so, {@code -v} names the dropped variables, and {@code magus learn}
 * takes an npm-like script from failing to passing without ever adding a credential store.
 */
class CliHabitsIT {
    static Path magus;

    @TempDir
    Path root;
    Path home;
    Path ws;
    Path bare;
    Map<String, String> env;

    @BeforeAll
    static void findMagus() {
        magus = BinMagus.find("bin/magus habits tests");
    }

    @BeforeEach
    void setUp() throws IOException {
        home = Files.createDirectories(root.resolve("home")).toRealPath();
        ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        bare = Files.createDirectories(root.resolve("bare")).toRealPath();
        Path tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Files.writeString(ws.resolve("magus.yaml"), "# the team's workspace\nsandbox:\n  mode: required\n");
        env = BinMagus.env(home, tmp);
    }

    private Result magus(Path dir, String... args) {
        return BinMagus.run(BinMagus.command(magus, dir, env, args), 120, "bin/magus " + List.of(args) + " ended");
    }

    @Test
    void stdin_reaches_the_child_by_default_and_not_with_no_stdin() throws IOException {
        Path input = Files.writeString(root.resolve("input.txt"), "hi\n");
        Result r = BinMagus.run(BinMagus.command(magus, ws, env, "run", "--", "cat")
                .redirectInput(input.toFile()), 120, "echo hi | magus run -- cat");
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(r.out()).isEqualTo("hi\n");
        Result none = BinMagus.run(BinMagus.command(magus, ws, env, "run", "--no-stdin", "--", "cat")
                .redirectInput(input.toFile()), 120, "magus run --no-stdin -- cat");
        assertThat(none.status()).as("%s", none).isZero();
        assertThat(none.out()).isEmpty();
    }

    @Test
    void an_unconfined_run_says_so_once_unless_quiet() {
        Result noFile = magus(bare, "run", "--", "true");
        assertThat(noFile.status()).as("%s", noFile).isZero();
        assertThat(noFile.err().lines().filter(l -> l.contains("unconfined"))).singleElement()
                .satisfies(l -> assertThat(l).contains("no magus.yaml here or above"));
        Result off = magus(ws, "run", "--sandbox=off", "--", "true");
        assertThat(off.err().lines().filter(l -> l.contains("unconfined"))).singleElement()
                .satisfies(l -> assertThat(l).contains("--sandbox=off"));
        assertThat(magus(bare, "run", "-q", "--", "true").err()).doesNotContain("unconfined");
        assertThat(magus(ws, "run", "--", "true").err()).as("a confined run").doesNotContain("unconfined");
    }

    @Test
    void verbose_names_the_dropped_variables_never_their_values() {
        env.put("NODE_OPTIONS", "--require=/tmp/value-of-node-options.js");
        env.put("HTTPS_PROXY", "http://user:value-of-proxy@proxy.invalid:3128");
        Result quiet = magus(ws, "run", "--", "true");
        assertThat(quiet.err()).contains("MGS2003").doesNotContain("NODE_OPTIONS");
        Result verbose = magus(ws, "run", "-v", "--", "true");
        assertThat(verbose.status()).as("%s", verbose).isZero();
        assertThat(verbose.err()).contains("dropped: ").contains("NODE_OPTIONS").contains("HTTPS_PROXY")
                .doesNotContain("value-of-node-options").doesNotContain("value-of-proxy");
    }

    @Test
    void learn_write_takes_an_npm_like_script_from_failing_to_passing_and_never_adds_npmrc() throws IOException {
        Path cache = Files.createDirectories(home.resolve(".fakepm/cache"));
        Files.writeString(cache.resolve("index.json"), "{}\n");
        Files.writeString(home.resolve(".npmrc"), "//registry.invalid/:_authToken=FAKE-NPM-TOKEN\n");
        Path script = Files.writeString(ws.resolve("install.sh"), """
                #!/bin/sh
                # What a package manager does: its cache, and a look at the credentials it may find.
                cat "$HOME/.npmrc" > /dev/null
                ok=0
                cat "$HOME/.fakepm/cache/index.json" > /dev/null || ok=1
                echo built > "$HOME/.fakepm/cache/x" || ok=1
                [ $ok = 0 ] && echo installed
                exit $ok
                """);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        String before = Files.readString(ws.resolve("magus.yaml"));

        Result failing = magus(ws, "run", "--", "./install.sh");
        assertThat(failing.status()).as("%s", failing).isEqualTo(1);

        // ~/.fakepm is no cache a spell knows, nor under the XDG dirs: --write alone leaves it for review.
        Result review = magus(ws, "learn", "--write", "--", "./install.sh");
        assertThat(review.status()).as("%s", review).isZero();
        assertThat(review.out()).contains("needs review: ~/.fakepm/cache (rw)").contains("not written without --force");
        assertThat(Files.readString(ws.resolve("magus.yaml"))).isEqualTo(before);

        Result learn = magus(ws, "learn", "--write", "--force", "--", "./install.sh");
        assertThat(learn.status()).as("%s", learn).isZero();
        assertThat(learn.out()).contains("- path: \"~/.fakepm/cache\"").contains("mode: rw")
                .contains("not added, these look like an attack").contains(home.resolve(".npmrc").toString());
        String after = Files.readString(ws.resolve("magus.yaml"));
        // The tool names the file; the kernel's audit record (read as root) names the directory it
        // was to be created in. Which one the comment shows depends on which report lands first
        // within the merge window, so either is right; the rule added is the same.
        assertThat(after).startsWith(before).doesNotContain("npmrc")
                .containsAnyOf("# magus learn: MGS2002 write " + cache.resolve("x") + "\n",
                        "# magus learn: MGS2002 write " + cache + "\n");

        Result passing = magus(ws, "run", "--", "./install.sh");
        assertThat(passing.status()).as("%s", passing).isZero();
        assertThat(passing.out()).contains("installed");
        assertThat(Files.readString(cache.resolve("x"))).isEqualTo("built\n");
        // Nothing new to learn now: the file is left as it is.
        Result again = magus(ws, "learn", "--write", "--", "./install.sh");
        assertThat(again.out()).contains("0 entries to add");
        assertThat(Files.readString(ws.resolve("magus.yaml"))).isEqualTo(after);
    }

    @Test
    void learn_never_lists_what_it_will_never_propose_among_the_entries_to_add() throws IOException {
        Files.createDirectories(home.resolve(".config/git"));
        String before = Files.readString(ws.resolve("magus.yaml"));

        Result learn = magus(ws, "learn", "--write", "--force", "--", "sh", "-c", "echo x > \"$HOME/.config/git/hooks\"");

        assertThat(learn.status()).as("%s", learn).isZero();
        assertThat(learn.out()).contains("0 entries to add").doesNotContain("- path:")
                .doesNotContain("no denial explains the failure")
                .contains("never proposed: ~/.config/git/hooks (rw)");
        assertThat(Files.readString(ws.resolve("magus.yaml"))).isEqualTo(before);
    }

    @Test
    void learn_rerun_reaches_a_clean_offline_maven_like_build_with_one_repository_grant() throws IOException {
        List<String> artifacts = List.of("org/a/1/a-1.jar", "org/b/2/b-2.jar", "com/c/3/c-3.jar", "com/d/4/d-4.pom");
        for (String a : artifacts) {
            Path f = home.resolve(".m2/repository").resolve(a);
            Files.createDirectories(f.getParent());
            Files.writeString(f, "artifact\n");
        }
        // Like Maven offline: reads each artifact in turn and stops at the first it cannot.
        Path build = ws.resolve("build.sh");
        Files.writeString(build, "#!/bin/sh\nfor f in " + String.join(" ", artifacts)
                + "; do cat \"$HOME/.m2/repository/$f\" > /dev/null || exit 1; done\necho built\n");
        build.toFile().setExecutable(true);
        Result r = magus(ws, "learn", "--rerun", "5", "--write", "--", "./build.sh");
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(r.out()).contains("built\n").contains("./build.sh exited 0; 1 entry to add");
        assertThat(r.err()).contains("magus learn: round 2 of 5, with --allow ~/.m2/repository:ro")
                .doesNotContain("round 3");
        String yaml = Files.readString(ws.resolve("magus.yaml"));
        assertThat(yaml.lines().filter(l -> l.contains("path:"))).containsExactly("    - path: \"~/.m2/repository\"");
        Result again = magus(ws, "run", "--", "./build.sh");
        assertThat(again.status()).as("the written grant lets the build through: %s", again).isZero();
        assertThat(again.err()).doesNotContain("MGS2001");
    }

    @Test
    void learn_says_no_denial_explains_a_failure_only_when_none_was_seen() throws IOException {
        Files.writeString(home.resolve(".npmrc"), "//registry.invalid/:_authToken=FAKE-NPM-TOKEN\n");
        Result stolen = magus(ws, "learn", "--", "sh", "-c", "cat \"$HOME/.npmrc\"");
        assertThat(stolen.out()).as("%s", stolen).contains("not added, these look like an attack")
                .doesNotContain("no denial explains the failure");
        Result other = magus(ws, "learn", "--", "sh", "-c", "exit 3");
        assertThat(other.out()).as("%s", other).contains("exited 3").contains("no denial explains the failure");
    }

    @Test
    void learn_never_writes_a_file_that_does_not_parse() throws IOException {
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: sometimes\n");
        Result r = magus(ws, "learn", "--write", "--", "true");
        assertThat(r.status()).as("%s", r).isEqualTo(125);
        assertThat(r.err()).contains("MGS2004");
        assertThat(Files.readString(ws.resolve("magus.yaml"))).isEqualTo("sandbox:\n  mode: sometimes\n");
    }
}
