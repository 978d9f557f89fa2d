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
 * magus.yaml {@code magus init} writes for its marker file: the test runs
 * {@code magus init}, then the build with {@code --sandbox required}, and declares nothing else.
 * The spell's caches work and the credential file beside them is refused by the kernel. A tool
 * missing on this host skips its test and says why. Nothing here reaches a network: npm is
 * pointed at a closed loopback port and runs offline, Maven and cargo run offline, go with
 * {@code GOPROXY=off} on a module without dependencies.
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

    /** The fake home, the workspace and a temp dir; the test then writes its project's files. */
    private void dirs() throws IOException {
        home = Files.createDirectories(root.resolve("home")).toRealPath();
        ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
    }

    /**
     * {@code magus init} in the workspace, as a new user would run it: the file it writes is the
     * whole declaration of the test, and it binds {@code spell} at the root from its marker file.
     */
    private void init(String spell) throws IOException {
        Result r = BinMagus.run(BinMagus.command(magus, ws, env(), "init"), 60, "magus init ended");
        assertThat(r.status()).as("%s", r).isZero();
        String yaml = Files.readString(ws.resolve("magus.yaml"));
        assertThat(yaml).as("magus init's file").contains("  - dir: .").containsPattern("spells: \\[([a-z]+, )*" + spell + "[],]")
                .doesNotContain("allow:").doesNotContain("passthrough");
        // What each test had to declare: the whole file, as magus init wrote it.
        System.out.println("[" + getClass().getSimpleName() + "] declared (magus init's file, run with --sandbox required):\n"
                + yaml);
    }

    private Map<String, String> env() {
        return BinMagus.env(home, tmp);
    }

    /** {@code magus run --sandbox required -- CMD...} in the workspace. */
    private Result run(Map<String, String> env, long seconds, String... cmd) {
        List<String> args = new java.util.ArrayList<>(List.of("run", "--sandbox", "required", "--"));
        args.addAll(List.of(cmd));
        return BinMagus.run(BinMagus.command(magus, ws, env, args.toArray(String[]::new)), seconds, "magus " + args + " ended");
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
        Result r = run(env, 60, "cat", file.toString());
        assertThat(r.out()).as("%s", r).doesNotContain("secret");
        assertThat(r.status()).as("%s", r).isEqualTo(1);
        assertThat(r.err()).as("%s", r).contains("Permission denied").contains("MGS2001").contains(shown);
    }

    @Test
    void nodeNpmInstallsAPackageWithAnInstallScriptAndNeverReadsNpmrc() throws IOException {
        need(onPath("npm"), "npm is not on PATH");
        dirs();
        Files.writeString(ws.resolve("package.json"),
                "{\"name\":\"app\",\"version\":\"1.0.0\",\"private\":true,\"dependencies\":{\"dep\":\"file:./dep\"}}\n");
        Files.createDirectories(ws.resolve("dep"));
        Files.writeString(ws.resolve("dep/package.json"), "{\"name\":\"dep\",\"version\":\"1.0.0\",\"scripts\":{\"install\":"
                + "\"node -e \\\"require('fs').writeFileSync('installed.txt', 'ran')\\\"\"}}\n");
        Files.writeString(home.resolve(".npmrc"), "//registry.npmjs.org/:_authToken=secret\n");
        init("node");

        Result r = run(env(), 120, "npm", "install", "--offline", "--no-audit", "--no-fund",
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
        dirs();
        // cargo's home is the fake one; its binaries and rustup's toolchains are the host's.
        Files.createDirectories(home.resolve(".cargo"));
        Files.createSymbolicLink(home.resolve(".cargo/bin"), cargo.get().getParent());
        Files.writeString(ws.resolve("Cargo.toml"), "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n"
                + "[dependencies]\n");
        Files.createDirectories(ws.resolve("src"));
        Files.writeString(ws.resolve("src/main.rs"), "fn main() { println!(\"built confined\"); }\n");
        init("rust");
        Map<String, String> env = env();
        env.put("PATH", home.resolve(".cargo/bin") + ":/usr/bin:/bin");
        env.put("RUSTUP_HOME", rustupHome.toString());
        env.put("RUSTUP_AUTO_INSTALL", "0");

        Result r = run(env, 120, "cargo", "build", "--offline");
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
        dirs();
        Files.writeString(ws.resolve("requirements.txt"), "");
        init("python");
        Map<String, String> env = env();
        env.put("PYENV_ROOT", root.get().toString());
        env.put("PATH", root.get().resolve("shims") + ":/usr/bin:/bin");

        Result r = run(env, 60, "python3", "-c", "import sys; print(sys.prefix)");
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(Path.of(r.out().strip())).as("%s", r).startsWith(root.get().toRealPath());
        refused(env, home.resolve(".pypirc"), "~/.pypirc");

        // The same file without the spell init bound: the shim's pyenv is out of reach.
        Files.writeString(ws.resolve("magus.yaml"), Files.readString(ws.resolve("magus.yaml")).replace("spells: [python]", "spells: []"));
        Result without = run(env, 60, "python3", "-c", "print('unreachable')");
        assertThat(without.status()).as("without the python spell the shim cannot reach pyenv: %s", without).isNotZero();
        assertThat(without.err()).as("%s", without).contains("MGS2007 exec denied: " + root.get().resolve("shims/python3"));
    }

    @Test
    void goBuildsOfflineWithTheGoSpellAndNeverReadsNetrc() throws IOException {
        Optional<Path> go = onPath("go");
        need(go, "go is not on PATH (.ci/run installs Debian's golang-go when it runs as root; the go spell's caches are"
                + " still tested in SpellsCachesIT)");
        dirs();
        // No dependencies, so nothing to fetch: GOPROXY=off proves it, -mod=mod lets go write go.sum if it must.
        Files.writeString(ws.resolve("go.mod"), "module demo\n\ngo 1.19\n");
        Files.writeString(ws.resolve("main.go"), "package main\n\nfunc main() { println(\"built confined\") }\n");
        init("go");
        Map<String, String> env = env();
        env.put("GOFLAGS", "-mod=mod");
        env.put("GOPROXY", "off");
        env.put("GOTOOLCHAIN", "local");
        Result r = run(env, 120, "go", "build", "-o", "demo", ".");
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(ws.resolve("demo")).isExecutable();
        // GOCACHE's default (the user cache dir's go-build), made for go and written by it.
        assertThat(home.resolve(".cache/go-build")).as("the Go build cache").isDirectoryContaining(p -> true);
        Result built = BinMagus.run(new ProcessBuilder(ws.resolve("demo").toString()).redirectErrorStream(true), 30, "demo ran");
        assertThat(built.out()).contains("built confined");
        refused(env, home.resolve(".netrc"), "~/.netrc");
    }

    /** Whether {@code tool --version} runs here, unconfined: a tool that cannot run on this host is as good as absent. */
    static boolean runs(Path tool) {
        Result r = BinMagus.run(new ProcessBuilder(tool.toString(), "--version").redirectErrorStream(true), 120, tool + " --version");
        return r.status() == 0;
    }

    @Test
    void javaGradleBuildsOfflineAndNeverReadsGradleProperties() throws IOException {
        need(onPath("gradle").filter(SpellsIT::runs), "no gradle on PATH that runs on this JDK (Debian's gradle 4.4.1 predates"
                + " Java 17, and no registry this CI reaches has another; the java spell's Gradle caches and gradle.properties are"
                + " still tested in SpellsCachesIT and the orchestrator's SpellCachesInRunsTest)");
        dirs();
        Files.writeString(ws.resolve("settings.gradle"), "rootProject.name = 'demo'\n");
        Files.writeString(ws.resolve("build.gradle"), "plugins { id 'java' }\n");
        Files.createDirectories(ws.resolve("src/main/java/demo"));
        Files.writeString(ws.resolve("src/main/java/demo/App.java"),
                "package demo;\npublic class App { public static void main(String[] a) { System.out.println(\"hi\"); } }\n");
        init("java");
        Map<String, String> env = env();
        // Java reads user.home from the password file, not HOME: the fake home is said explicitly.
        env.put("GRADLE_OPTS", "-Duser.home=" + home);
        Result r = run(env, 300, "gradle", "--offline", "--no-daemon", "-q", "jar");
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(ws.resolve("build/libs/demo.jar")).isRegularFile();
        assertThat(home.resolve(".gradle/caches")).as("Gradle's caches, made for it and written by it").isDirectoryContaining(p -> true);
        refused(env, home.resolve(".gradle/gradle.properties"), "~/.gradle/gradle.properties");
    }

    @Test
    void javaMavenPackagesOfflineAndNeverReadsSettingsXml() throws IOException, InterruptedException {
        Optional<Path> mvn = onPath("mvn");
        need(mvn, "mvn is not on PATH");
        Path hostRepo = Path.of(System.getProperty("user.home"), ".m2", "repository");
        Map<String, String> plugins = MavenSeed.plugins(magus.getParent().getParent().resolve("pom.xml"), hostRepo);
        need(Optional.of(plugins).filter(p -> p.size() == MavenSeed.PLUGINS.size()),
                "the host's ~/.m2/repository lacks the jar of one of " + MavenSeed.PLUGINS + " at the versions of this build");
        dirs();
        MavenSeed.project(ws, plugins);
        // The fake home's repository holds what the build needs, copied from the host's through a
        // file:// mirror (no network); kept under target/ so a second run of the test skips it.
        MavenSeed.seed(hostRepo, plugins, home.resolve(".m2/repository"), root.resolve("seed"));
        init("java");
        Map<String, String> env = env();
        // Java reads user.home from the password file, not HOME: the fake home is said explicitly.
        env.put("MAVEN_OPTS", "-Duser.home=" + home + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
        Result r = run(env, 180, "mvn", "-B", "-o", "-q", "package", "-DskipTests");
        assertThat(r.status()).as("%s", r).isZero();
        assertThat(ws.resolve("target/demo-1.jar")).isRegularFile();
        refused(env, home.resolve(".m2/settings.xml"), "~/.m2/settings.xml");
    }

}
