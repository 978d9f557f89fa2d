package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.cli.BinMagus.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real toolchains run confined under {@code required} with a fake home, each with only the
 * magus.yaml {@code projects: [{dir: ., spells: [X]}]} declares (issue 14): the spell's caches
 * work and the credential file beside them is refused by the kernel. A tool missing on this
 * host skips its test and says why. Nothing here reaches a network: npm is pointed at a closed
 * loopback port and runs offline, Maven and cargo run offline.
 */
class SpellsIT {
    static Path magus;

    @TempDir
    Path root;
    Path home;
    Path ws;
    Path tmp;

    @BeforeAll
    static void findMagus() {
        magus = BinMagus.find("spell end-to-end tests");
    }

    private void workspace(String projects) throws IOException {
        home = Files.createDirectories(root.resolve("home")).toRealPath();
        ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        String yaml = "sandbox:\n  mode: required\nprojects: " + projects + "\n";
        Files.writeString(ws.resolve("magus.yaml"), yaml);
        // What each test had to declare: the whole file.
        System.out.println("[" + getClass().getSimpleName() + "] declared:\n" + yaml);
    }

    private Map<String, String> env() {
        return BinMagus.env(home, tmp);
    }

    private Result magus(Map<String, String> env, long seconds, String... args) {
        return BinMagus.run(BinMagus.command(magus, ws, env, args), seconds, "magus " + List.of(args) + " ended");
    }

    /** The absolute path of {@code tool} on this process's PATH, if any. */
    static Optional<Path> onPath(String tool) {
        for (String dir : Optional.ofNullable(System.getenv("PATH")).orElse("").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir).resolve(tool);
            if (!dir.isEmpty() && Files.isExecutable(p) && !Files.isDirectory(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    static void need(Optional<?> thing, String why) {
        if (thing.isEmpty()) {
            System.err.println("[SpellsIT] skipped: " + why);
        }
        Assumptions.assumeTrue(thing.isPresent(), why);
    }

    /** A confined child reading {@code file} is refused by the kernel, and magus says MGS2001 naming it. */
    private void refused(Map<String, String> env, Path file, String shown) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "token=secret\n");
        Result r = magus(env, 60, "run", "--", "cat", file.toString());
        assertThat(r.out()).as("%s", r).doesNotContain("secret");
        assertThat(r.status()).as("%s", r).isEqualTo(1);
        assertThat(r.err()).as("%s", r).contains("Permission denied").contains("MGS2001").contains(shown);
    }

    @Test
    void nodeNpmInstallsAPackageWithAnInstallScriptAndNeverReadsNpmrc() throws IOException {
        need(onPath("npm"), "npm is not on PATH");
        workspace("[{dir: ., spells: [node]}]");
        Files.writeString(ws.resolve("package.json"),
                "{\"name\":\"app\",\"version\":\"1.0.0\",\"private\":true,\"dependencies\":{\"dep\":\"file:./dep\"}}\n");
        Files.createDirectories(ws.resolve("dep"));
        Files.writeString(ws.resolve("dep/package.json"), "{\"name\":\"dep\",\"version\":\"1.0.0\",\"scripts\":{\"install\":"
                + "\"node -e \\\"require('fs').writeFileSync('installed.txt', 'ran')\\\"\"}}\n");
        Files.writeString(home.resolve(".npmrc"), "//registry.npmjs.org/:_authToken=secret\n");

        Result r = magus(env(), 120, "run", "--", "npm", "install", "--offline", "--no-audit", "--no-fund",
                "--no-update-notifier", "--registry=http://127.0.0.1:9/");
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(ws.resolve("node_modules/dep/installed.txt")).as("the install script ran").hasContent("ran");
        assertThat(home.resolve(".npm")).as("npm's cache, made for it and written by it").isDirectoryContaining(p -> true);
        refused(env(), home.resolve(".npmrc"), "~/.npmrc");
    }

    @Test
    void rustCargoBuildsOfflineAndNeverReadsCargoCredentials() throws IOException {
        Optional<Path> cargo = onPath("cargo");
        need(cargo, "cargo is not on PATH");
        Path rustupHome = Optional.ofNullable(System.getenv("RUSTUP_HOME")).map(Path::of)
                .orElse(Path.of(System.getProperty("user.home"), ".rustup"));
        need(Optional.of(rustupHome).filter(Files::isDirectory), "no rustup home at " + rustupHome);
        workspace("[{dir: ., spells: [rust]}]");
        // cargo's home is the fake one; its binaries and rustup's toolchains are the host's.
        Files.createDirectories(home.resolve(".cargo"));
        Files.createSymbolicLink(home.resolve(".cargo/bin"), cargo.get().getParent());
        Files.writeString(ws.resolve("Cargo.toml"), "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n"
                + "[dependencies]\n");
        Files.createDirectories(ws.resolve("src"));
        Files.writeString(ws.resolve("src/main.rs"), "fn main() { println!(\"built confined\"); }\n");
        Map<String, String> env = env();
        env.put("PATH", home.resolve(".cargo/bin") + ":/usr/bin:/bin");
        env.put("RUSTUP_HOME", rustupHome.toString());
        env.put("RUSTUP_AUTO_INSTALL", "0");

        Result r = magus(env, 120, "run", "--", "cargo", "build", "--offline");
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(ws.resolve("target/debug/demo")).isExecutable();
        assertThat(home.resolve(".cargo/registry")).isDirectory();
        refused(env, home.resolve(".cargo/credentials.toml"), "~/.cargo/credentials.toml");
    }

    @Test
    void pythonPyenvShimRunsWithThePythonSpellAndNotWithout() throws IOException {
        Optional<Path> root = Optional.ofNullable(System.getenv("PYENV_ROOT")).map(Path::of)
                .filter(p -> Files.isExecutable(p.resolve("shims/python3")));
        need(root, "no pyenv (PYENV_ROOT with shims/python3)");
        workspace("[{dir: ., spells: [python]}]");
        Map<String, String> env = env();
        env.put("PYENV_ROOT", root.get().toString());
        env.put("PATH", root.get().resolve("shims") + ":/usr/bin:/bin");

        Result r = magus(env, 60, "run", "--", "python3", "-c", "import sys; print(sys.prefix)");
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(Path.of(r.out().strip())).as("%s", r).startsWith(root.get().toRealPath());
        refused(env, home.resolve(".pypirc"), "~/.pypirc");

        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\nprojects: [{dir: .}]\n");
        Result without = magus(env, 60, "run", "--", "python3", "-c", "print('unreachable')");
        assertThat(without.status()).as("without the python spell the shim cannot reach pyenv: %s", without).isNotZero();
        assertThat(without.err()).as("%s", without).contains("MGS2007 exec denied: " + root.get().resolve("shims/python3"));
    }

    @Test
    void goBuildsWithTheGoSpell() throws IOException {
        Optional<Path> go = onPath("go");
        need(go, "go is not on PATH (the go spell's caches are still tested in SpellsCachesIT)");
        workspace("[{dir: ., spells: [go]}]");
        Files.writeString(ws.resolve("go.mod"), "module demo\n\ngo 1.20\n");
        Files.writeString(ws.resolve("main.go"), "package main\n\nfunc main() { println(\"built confined\") }\n");
        Map<String, String> env = env();
        env.put("GOFLAGS", "-mod=mod");
        env.put("GOPROXY", "off");
        env.put("GOTOOLCHAIN", "local");
        Result r = magus(env, 120, "run", "--", "go", "build", "-o", "demo", ".");
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(ws.resolve("demo")).isExecutable();
        refused(env, home.resolve(".netrc"), "~/.netrc");
    }

    @Test
    void javaMavenPackagesOfflineAndNeverReadsSettingsXml() throws IOException, InterruptedException {
        Optional<Path> mvn = onPath("mvn");
        need(mvn, "mvn is not on PATH");
        Path hostRepo = Path.of(System.getProperty("user.home"), ".m2", "repository");
        Map<String, String> plugins = MavenSeed.plugins(magus.getParent().getParent().resolve("pom.xml"), hostRepo);
        need(Optional.of(plugins).filter(p -> p.size() == MavenSeed.PLUGINS.size()),
                "the host's ~/.m2/repository lacks the jar of one of " + MavenSeed.PLUGINS + " at the versions of this build");
        workspace("[{dir: ., spells: [java]}]");
        MavenSeed.project(ws, plugins);
        // The fake home's repository holds what the build needs, copied from the host's through a
        // file:// mirror (no network); kept under target/ so a second run of the test skips it.
        MavenSeed.seed(hostRepo, plugins, home.resolve(".m2/repository"), root.resolve("seed"));
        Map<String, String> env = env();
        // Java reads user.home from the password file, not HOME: the fake home is said explicitly.
        env.put("MAVEN_OPTS", "-Duser.home=" + home + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
        Result r = magus(env, 180, "run", "--", "mvn", "-B", "-o", "-q", "package", "-DskipTests");
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(ws.resolve("target/demo-1.jar")).isRegularFile();
        refused(env, home.resolve(".m2/settings.xml"), "~/.m2/settings.xml");
    }

}
