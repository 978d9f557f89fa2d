package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.cli.BinMagus.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Everyday output, through {@code bin/magus}, on both paths: each run once with {@code --local}
 * and once forwarded to a real server on its Unix socket. A clean run shows only the child's
 * output, {@code -q} only refusals and denials, {@code -v} everything; {@code --fail-on-denial}
 * exits 3 on a clean exit after a denial; an {@code --allow} of a credential store says so in one line.
 */
class EverydayOutputIT {
    static Path magus;

    @TempDir
    Path root;
    Path home;
    Path ws;
    Path key;
    Map<String, String> env;

    @BeforeAll
    static void findMagus() {
        magus = BinMagus.find("everyday output tests");
    }

    @BeforeEach
    void setUp() throws IOException {
        home = Files.createDirectories(root.resolve("home")).toRealPath();
        ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        Path tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Path runtime = Files.createDirectories(root.resolve("runtime"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Files.createDirectories(home.resolve(".ssh"));
        key = Files.writeString(home.resolve(".ssh/id_rsa"), "KEY-c0ffee\n");
        env = BinMagus.env(home, tmp);
        // No version manager's shims: what -v shows is magus's alone.
        env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.put("XDG_RUNTIME_DIR", runtime.toString());
        if (System.getenv("JAVA_HOME") != null) {
            env.put("JAVA_HOME", System.getenv("JAVA_HOME"));
        }
        Result started = magus(env, "server", "start");
        assertThat(started.status()).as("%s", started).isZero();
        // MGS2003 is said on a workspace's first run: this one.
        magus(env, "run", "--local", "--", "true");
    }

    @AfterEach
    void stopServer() {
        magus(env, "server", "stop");
    }

    private Result magus(Map<String, String> e, String... args) {
        return BinMagus.run(BinMagus.command(magus, ws, e, args), 120, "bin/magus " + List.of(args) + " ended");
    }

    /** The same words, run --local and forwarded: both results, local first. */
    private List<Result> both(Map<String, String> extra, String... words) {
        List<Result> results = new ArrayList<>();
        for (boolean local : new boolean[] {true, false}) {
            Map<String, String> e = new LinkedHashMap<>(env);
            e.putAll(extra);
            List<String> args = new ArrayList<>(List.of("run"));
            if (local) {
                args.add("--local");
            }
            args.addAll(List.of(words));
            results.add(magus(e, args.toArray(String[]::new)));
        }
        return results;
    }

    private static void lines(Result r, String... patterns) {
        List<String> err = r.err().lines().toList();
        assertThat(err).as("stderr of %s", r).hasSize(patterns.length);
        for (int i = 0; i < patterns.length; i++) {
            assertThat(err.get(i)).as("stderr line %s of %s", i, r).matches(patterns[i]);
        }
    }

    private static String see(String code) {
        return Pattern.quote("; see 'magus explain " + code + "'");
    }

    @Test
    void a_clean_run_prints_only_the_childs_output_quiet_only_denials_verbose_everything() {
        for (Result r : both(Map.of(), "--", "echo", "hello")) {
            assertThat(r.status()).as("%s", r).isZero();
            assertThat(r.out()).isEqualTo("hello\n");
            assertThat(r.err()).as("a clean run").isEmpty();
        }
        String denied = "magus: MGS2001 read denied: ~/\\.ssh/id_rsa is outside every read rule; .*\\[kernel\\]" + see("MGS2001");
        // A new variable to drop: MGS2003 would be said, but -q leaves denials only.
        for (Result r : both(Map.of("QUIET_DROPPED", "1"), "-q", "--", "sh", "-c", "cat " + key + "; echo after")) {
            assertThat(r.status()).as("%s", r).isZero();
            assertThat(r.out()).isEqualTo("after\n");
            lines(r, Pattern.quote("cat: " + key + ": Permission denied"), denied);
        }
        for (Result r : both(Map.of("VERBOSE_DROPPED", "1"), "-v", "--", "echo", "v")) {
            assertThat(r.status()).as("%s", r).isZero();
            assertThat(r.out()).isEqualTo("v\n");
            lines(r, "magus: MGS2003 child environment rebuilt from the allowlist: .*" + see("MGS2003"),
                    "magus:   dropped: (.*, )?VERBOSE_DROPPED(, .*)?");
        }
        assertThat(both(Map.of(), "-q", "--allow", home.resolve(".ssh").toString(), "--", "true"))
                .allSatisfy(r -> assertThat(r.err()).isEmpty());
    }

    @Test
    void fail_on_denial_exits_3_after_a_clean_exit_with_a_denial_only() {
        // The refusal is seen as every denial is without --kernel-audit: from the message the tool prints.
        String shrug = "cat " + key + "; true";
        assertThat(both(Map.of(), "--", "sh", "-c", shrug)).allSatisfy(r -> assertThat(r.status()).as("%s", r).isZero());
        assertThat(both(Map.of(), "--fail-on-denial", "--", "sh", "-c", shrug))
                .allSatisfy(r -> assertThat(r.status()).as("%s", r).isEqualTo(3));
        assertThat(both(Map.of(), "--fail-on-denial", "-q", "--", "sh", "-c", shrug))
                .allSatisfy(r -> assertThat(r.status()).as("quiet changes no status: %s", r).isEqualTo(3));
        assertThat(both(Map.of(), "--fail-on-denial", "--", "sh", "-c", "cat " + key + "; exit 5"))
                .allSatisfy(r -> assertThat(r.status()).as("the child's own failure: %s", r).isEqualTo(5));
        assertThat(both(Map.of(), "--fail-on-denial", "--", "echo", "clean"))
                .allSatisfy(r -> assertThat(r.status()).as("%s", r).isZero());
    }

    @Test
    void an_allow_of_a_credential_store_warns_in_one_line_on_both_paths() {
        List<Result> rs = both(Map.of(), "--allow", home.resolve(".ssh") + ":rw", "--", "cat", key.toString());
        for (Result r : rs) {
            assertThat(r.status()).as("%s", r).isZero();
            assertThat(r.out()).isEqualTo("KEY-c0ffee\n");
            lines(r, Pattern.quote("magus: warning: --allow " + home.resolve(".ssh") + ":rw grants this run a credential"
                    + " store, ~/.ssh: ") + ".*change them.*");
        }
        assertThat(rs.get(1).err()).isEqualTo(rs.get(0).err());
        assertThat(both(Map.of(), "--allow", home.toString() + "/.ssh/../out", "--", "true"))
                .allSatisfy(r -> assertThat(r.err()).doesNotContain("warning"));
    }

    @Test
    void a_nested_run_shows_each_denial_once() {
        for (Result r : both(Map.of(), "--", magus.toString(), "run", "--", "cat", key.toString())) {
            assertThat(r.status()).as("%s", r).isEqualTo(1);
            assertThat(r.err().lines().filter(l -> l.startsWith("magus: MGS2001 "))).as("%s", r).hasSize(1);
        }
    }

    @Test
    void maven_under_another_user_home_names_it_and_the_hint_makes_the_denial_go_away() throws IOException {
        // The password file's home, as the JVM reads it: elsewhere than HOME, outside every rule.
        Path passwdHome = Files.createDirectories(root.resolve("passwd-home"));
        for (Path h : List.of(passwdHome, home)) {
            Files.createDirectories(h.resolve(".m2/repository/dep"));
            Files.writeString(h.resolve(".m2/repository/dep/dep.jar"), "jar\n");
        }
        Files.writeString(ws.resolve("pom.xml"), "<project/>\n");
        Files.writeString(ws.resolve("Read.java"), "public class Read { public static void main(String[] a) throws Exception {"
                + " java.nio.file.Path p = java.nio.file.Path.of(System.getProperty(\"user.home\"), \".m2/repository/dep/dep.jar\");"
                + " try (var in = new java.io.FileInputStream(p.toFile())) { System.out.println(\"read \" + in.readAllBytes().length); } } }\n");
        // A Maven stand-in: a JVM whose user.home is the password file's unless MAVEN_OPTS says otherwise.
        Path mvn = ws.resolve("mvn");
        Files.writeString(mvn, "#!/bin/sh\nexec java -Duser.home=" + passwdHome + " $MAVEN_OPTS Read.java\n");
        mvn.toFile().setExecutable(true);
        Files.delete(ws.resolve("magus.yaml"));
        Result init = magus(env, "init");
        assertThat(init.status()).as("%s", init).isZero();
        magus(env, "run", "--local", "--", "true");
        for (Result r : both(Map.of(), "--", "./mvn")) {
            assertThat(r.status()).as("%s", r).isNotZero();
            assertThat(r.err().lines().filter(l -> l.startsWith("magus: MGS2001 ")))
                    .as("%s", r).singleElement().satisfies(l -> assertThat(l)
                            .contains("Maven looks under Java's user.home (" + passwdHome + ")")
                            .contains("MAVEN_OPTS=-Duser.home=$HOME"));
        }
        // The JVM's own silent probes (its core-dump filter, hsperfdata) are no denial of the build's.
        for (Result r : both(Map.of("MAVEN_OPTS", "-Duser.home=" + home), "--fail-on-denial", "--", "./mvn")) {
            assertThat(r.status()).as("%s", r).isZero();
            assertThat(r.out()).isEqualTo("read 4\n");
            assertThat(r.err()).as("%s", r).doesNotContain("MGS2001");
        }
    }

    @Test
    void rustup_under_another_home_names_cargo_home_and_rustup_home_and_the_rust_spell_follows_them() throws IOException {
        Path other = Files.createDirectories(root.resolve("other-home"));
        Path rustup = Files.createDirectories(other.resolve(".cargo/bin")).resolve("rustup");
        Files.writeString(rustup, "#!/bin/sh\ncat \"${RUSTUP_HOME:-$HOME/.rustup}/settings.toml\"\n");
        rustup.toFile().setExecutable(true);
        Files.createDirectories(other.resolve(".rustup"));
        Files.writeString(other.resolve(".rustup/settings.toml"), "default_toolchain = \"stable\"\n");
        Files.writeString(ws.resolve("Cargo.toml"), "[package]\nname = \"demo\"\n");
        Files.delete(ws.resolve("magus.yaml"));
        Result init = magus(env, "init");
        assertThat(init.status()).as("%s", init).isZero();
        magus(env, "run", "--local", "--", "true");
        for (Result r : both(Map.of(), "--", rustup.toString(), "show")) {
            assertThat(r.status()).as("%s", r).isEqualTo(126);
            assertThat(r.err()).as("%s", r).contains("MGS2007").contains("CARGO_HOME=" + other.resolve(".cargo"))
                    .contains("RUSTUP_HOME=" + other.resolve(".rustup"));
        }
        Map<String, String> homes = Map.of("CARGO_HOME", other.resolve(".cargo").toString(),
                "RUSTUP_HOME", other.resolve(".rustup").toString());
        for (Result r : both(homes, "--", rustup.toString(), "show")) {
            assertThat(r.status()).as("%s", r).isZero();
            assertThat(r.out()).isEqualTo("default_toolchain = \"stable\"\n");
            assertThat(r.err()).as("%s", r).doesNotContain("MGS200");
        }
    }
}
