package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.cli.BinMagus.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every built-in spell at once, toolchains or not: each spell's cache is writable by a confined
 * child and each credential file beside those caches is refused by the kernel (MGS2001), in the
 * tools' default homes and in homes their variables moved ({@code CARGO_HOME},
 * {@code GRADLE_USER_HOME}); and
 * which spells a process gets decides what it reaches: an npm postinstall in a project without
 * the go spell cannot write the Go build cache, while a target's own process can.
 */
class SpellsCachesIT {
    static Path magus;

    @TempDir
    Path root;

    @BeforeAll
    static void findMagus() {
        magus = BinMagus.find("spell end-to-end tests");
    }

    /** Per spell: a cache it grants (written), and the credential files it keeps out (read). */
    static final Map<String, List<String>> CACHES = new LinkedHashMap<>();
    static final Map<String, List<String>> CREDENTIALS = new LinkedHashMap<>();

    static {
        CACHES.put("node", List.of(".npm/_cacache/probe", ".cache/yarn/probe"));
        CREDENTIALS.put("node", List.of(".npmrc", ".yarnrc.yml"));
        CACHES.put("java", List.of(".m2/repository/probe", ".gradle/caches/probe"));
        CREDENTIALS.put("java", List.of(".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties"));
        CACHES.put("rust", List.of(".cargo/registry/probe", ".cargo/git/probe"));
        CREDENTIALS.put("rust", List.of(".cargo/credentials.toml", ".cargo/credentials"));
        CACHES.put("go", List.of(".cache/go-build/probe", "go/pkg/mod/probe"));
        CREDENTIALS.put("go", List.of(".netrc"));
        CACHES.put("python", List.of(".cache/pip/probe"));
        CREDENTIALS.put("python", List.of(".pypirc", ".config/pip/pip.conf"));
        CACHES.put("mise", List.of(".cache/mise/probe"));
        CREDENTIALS.put("mise", List.of(".docker/config.json"));
    }

    @Test
    void everySpellsCacheIsWritableAndEveryCredentialFileBesideItIsRefused() throws IOException {
        Path home = Files.createDirectories(root.resolve("home")).toRealPath();
        Path ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        Path tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\nprojects:\n"
                + "  - {dir: ., spells: [node, java, rust, go, python, mise, asdf, nvm, sdkman]}\n");
        StringBuilder script = new StringBuilder();
        for (String spell : CACHES.keySet()) {
            for (String c : CACHES.get(spell)) {
                // The caches a fresh home lacks are made for the tool; the rest the tool would make inside them.
                Files.createDirectories(home.resolve(c).getParent());
                script.append("echo ok > \"$HOME/").append(c).append("\" && echo WROTE ").append(c).append("; ");
            }
            for (String cred : CREDENTIALS.get(spell)) {
                Path f = home.resolve(cred);
                Files.createDirectories(f.getParent());
                Files.writeString(f, "password=secret\n");
                script.append("cat \"$HOME/").append(cred).append("\" && echo LEAKED ").append(cred).append("; ");
            }
        }
        Result r = BinMagus.run(BinMagus.command(magus, ws, BinMagus.env(home, tmp), "run", "--", "sh", "-c", script.toString()),
                60, "the probe ended");
        for (String spell : CACHES.keySet()) {
            for (String c : CACHES.get(spell)) {
                assertThat(r.out()).as("%s: %s", spell, r).contains("WROTE " + c);
            }
            for (String cred : CREDENTIALS.get(spell)) {
                assertThat(r.out()).as("%s: %s", spell, r).doesNotContain("LEAKED " + cred).doesNotContain("secret");
                assertThat(r.err()).as("%s: %s", spell, r).contains("MGS2001 read denied: ~/" + cred);
            }
        }
    }

    @Test
    void aToolHomeMovedByItsVariableKeepsItsCredentialsOutAndItsCachesAreMadeThere() throws IOException {
        Path home = Files.createDirectories(root.resolve("home")).toRealPath();
        Path ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        Path tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Path cargoHome = Files.createDirectories(root.resolve("cargo-home")).toRealPath();
        Path gradleHome = Files.createDirectories(root.resolve("gradle-home")).toRealPath();
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\nprojects:\n  - {dir: ., spells: [java, rust]}\n");
        // A Gradle project: the java spell makes Gradle's caches only for one.
        Files.writeString(ws.resolve("build.gradle"), "");
        List<Path> credentials = List.of(cargoHome.resolve("credentials.toml"), cargoHome.resolve("credentials"),
                gradleHome.resolve("gradle.properties"));
        for (Path c : credentials) {
            Files.writeString(c, "token=secret\n");
        }
        // The caches do not exist yet: magus makes them in the moved homes, as the tools would.
        String script = "echo ok > \"$CARGO_HOME/registry/probe\" && echo WROTE registry; "
                + "echo ok > \"$GRADLE_USER_HOME/caches/probe\" && echo WROTE caches; "
                + "echo ok > \"$GRADLE_USER_HOME/wrapper/probe\" && echo WROTE wrapper; "
                + "echo x > \"$GRADLE_USER_HOME/init.gradle\" && echo PLANTED; "
                + "for f in \"$CARGO_HOME/credentials.toml\" \"$CARGO_HOME/credentials\" \"$GRADLE_USER_HOME/gradle.properties\"; do"
                + " cat \"$f\" && echo \"LEAKED $f\"; done; true";
        Map<String, String> env = BinMagus.env(home, tmp);
        env.put("CARGO_HOME", cargoHome.toString());
        env.put("GRADLE_USER_HOME", gradleHome.toString());
        Result r = BinMagus.run(BinMagus.command(magus, ws, env, "run", "--", "sh", "-c", script), 60, "the probe ended");
        assertThat(r.out()).as("%s", r).contains("WROTE registry", "WROTE caches", "WROTE wrapper")
                .doesNotContain("PLANTED").doesNotContain("LEAKED").doesNotContain("secret");
        assertThat(gradleHome.resolve("init.gradle")).doesNotExist();
        for (Path c : credentials) {
            assertThat(r.err()).as("%s", r).contains("MGS2001 read denied: " + c);
        }
    }

    @Test
    void anNpmPostinstallInAProjectWithoutTheGoSpellCannotWriteTheGoBuildCache() throws IOException {
        SpellsIT.need(SpellsIT.onPath("npm"), "npm is not on PATH");
        Path home = Files.createDirectories(root.resolve("home")).toRealPath();
        Path ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        Path tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\nprojects:\n"
                + "  - {dir: ., spells: [node]}\n  - {dir: svc, spells: [go]}\n");
        Files.createDirectories(ws.resolve("svc"));
        Files.writeString(ws.resolve("package.json"),
                "{\"name\":\"app\",\"version\":\"1.0.0\",\"private\":true,\"dependencies\":{\"dep\":\"file:./dep\"}}\n");
        Files.createDirectories(ws.resolve("dep"));
        Files.writeString(ws.resolve("dep/package.json"), "{\"name\":\"dep\",\"version\":\"1.0.0\",\"scripts\":{\"postinstall\":"
                + "\"node -e \\\"require('fs').writeFileSync(require('path').join(process.env.HOME, '.cache/go-build/planted'), 'x')\\\"\"}}\n");
        Path gocache = Files.createDirectories(home.resolve(".cache/go-build"));

        Result op = BinMagus.run(BinMagus.command(magus, ws, BinMagus.env(home, tmp), "run", "--op", "node", "--", "npm", "install",
                "--offline", "--no-audit", "--no-fund", "--no-update-notifier", "--registry=http://127.0.0.1:9/"), 120, "npm ended");
        assertThat(op.status()).as("the postinstall failed, so npm did: %s", op).isNotZero();
        assertThat(gocache.resolve("planted")).doesNotExist();
        // Refused by the kernel at exactly that write: the postinstall ran and was stopped there, not before.
        assertThat(op.err()).as("%s", op).contains("MGS2002 write denied: ~/.cache/go-build/planted");

        Result policy = BinMagus.run(BinMagus.command(magus, ws, BinMagus.env(home, tmp), "policy", "--op", "node"), 60, "policy");
        assertThat(policy.out()).contains("node (a spell op's child").doesNotContain("spell:go");

        // A target's own process gets every spell the workspace's projects bind, go's included.
        Result target = BinMagus.run(BinMagus.command(magus, ws, BinMagus.env(home, tmp), "run", "--", "sh", "-c",
                "echo x > \"$HOME/.cache/go-build/planted\""), 60, "the plain run ended");
        assertThat(target.status()).as("%s", target).isZero();
        assertThat(gocache.resolve("planted")).exists();
    }
}
