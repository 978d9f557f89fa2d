package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.assumeLandlock;
import static dev.magus.landlock.launch.Children.env;
import static dev.magus.landlock.launch.Children.rule;
import static dev.magus.landlock.launch.Children.sh;
import static dev.magus.landlock.launch.Children.systemPlus;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.compile.CompiledRuleset;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.events.Mode;
import dev.magus.policy.path.PathResolver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rule's path resolved when the policy is built, then swapped for a symbolic link before the
 * ruleset opens it (what a concurrent confined run that can write the workspace could do): the
 * kernel ruleset grants nothing there, never the link's target.
 */
class RuleSwapTest {
    @TempDir
    Path root;
    Path home;
    Path ws;
    Map<String, String> env;

    @BeforeEach
    void setUp() throws IOException {
        assumeLandlock();
        home = Files.createDirectories(root.resolve("home"));
        ws = Files.createDirectories(root.resolve("ws"));
        env = env(home);
    }

    private Rule resolved(Path p, AccessMode mode) {
        Path real = new PathResolver().resolve(p).resolvedPath().orElseThrow();
        return new Rule(real, mode, "test:" + p.getFileName());
    }

    @Test
    void aLastComponentSwappedForALinkGrantsNothing() throws IOException {
        Path keys = Files.createDirectories(home.resolve(".ssh"));
        Files.writeString(keys.resolve("id_rsa"), "PRIVATE KEY\n");
        Path out = Files.createDirectories(ws.resolve("out"));
        Rule granted = resolved(out, AccessMode.RW);
        // The swap, between resolution and the open:
        Files.delete(out);
        Files.createSymbolicLink(out, keys);

        try (Confinement c = Confinement.prepare(Mode.REQUIRED, systemPlus(rule(ws, AccessMode.R), granted),
                LandlockProbe.kernel())) {
            CompiledRuleset ruleset = ((Confinement.Kernel) c).ruleset();
            assertThat(ruleset.grants()).extracting(CompiledRuleset.Grant::path).doesNotContain(granted.path(), keys);
            assertThat(ruleset.skipped()).singleElement().satisfies(s -> {
                assertThat(s.path()).isEqualTo(granted.path());
                assertThat(s.reason()).contains("symbolic link");
            });
            Children.Result r = sh(c, ws, env, "cat out/id_rsa; cat \"$HOME/.ssh/id_rsa\"; echo x > out/planted");
            assertThat(r.out()).doesNotContain("PRIVATE KEY");
            assertThat(r.err()).contains("Permission denied");
            assertThat(keys.resolve("planted")).doesNotExist();
        }
    }

    @Test
    void anInnerComponentSwappedForALinkGrantsNothing() throws IOException {
        Path b = Files.createDirectories(home.resolve("b"));
        Files.writeString(b.resolve("token"), "TOKEN\n");
        Path a = ws.resolve("a");
        Rule granted = resolved(Files.createDirectories(a.resolve("b")), AccessMode.RW);
        Files.delete(a.resolve("b"));
        Files.delete(a);
        Files.createSymbolicLink(a, home);

        try (Confinement c = Confinement.prepare(Mode.REQUIRED, systemPlus(rule(ws, AccessMode.R), granted),
                LandlockProbe.kernel())) {
            CompiledRuleset ruleset = ((Confinement.Kernel) c).ruleset();
            assertThat(ruleset.skipped()).extracting(CompiledRuleset.Skipped::path).containsExactly(granted.path());
            Children.Result r = sh(c, ws, env, "cat a/b/token; echo x > a/b/planted");
            assertThat(r.out()).doesNotContain("TOKEN");
            assertThat(b.resolve("planted")).doesNotExist();
        }
    }

    @Test
    void anUnswappedRuleIsGrantedAsBefore() throws IOException {
        Path out = Files.createDirectories(ws.resolve("out"));
        Rule granted = resolved(out, AccessMode.RW);
        try (Confinement c = Confinement.prepare(Mode.REQUIRED, systemPlus(rule(ws, AccessMode.R), granted),
                LandlockProbe.kernel())) {
            assertThat(((Confinement.Kernel) c).ruleset().skipped()).isEmpty();
            sh(c, ws, env, "echo built > out/x").assertOk();
            assertThat(out.resolve("x")).hasContent("built");
        }
    }
}
