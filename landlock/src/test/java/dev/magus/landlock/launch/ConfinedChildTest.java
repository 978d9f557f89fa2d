package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.assumeLandlock;
import static dev.magus.landlock.launch.Children.env;
import static dev.magus.landlock.launch.Children.rule;
import static dev.magus.landlock.launch.Children.sh;
import static dev.magus.landlock.launch.Children.systemPlus;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Layer;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.events.Mode;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A child under a workspace policy, run for real: the boundaries of the specification, each hit. */
class ConfinedChildTest {
    private static final String SECRET = "aws_secret_access_key = AKIAFAKEFAKEFAKE";

    @TempDir
    Path root;
    Path home;
    Path ws;
    Path other;
    Path secret;
    Map<String, String> env;
    Confinement confined;

    @BeforeEach
    void setUp() throws IOException {
        assumeLandlock();
        home = Files.createDirectories(root.resolve("home"));
        ws = Files.createDirectories(root.resolve("ws"));
        other = Files.createDirectories(root.resolve("tmp"));
        secret = home.resolve(".aws/credentials");
        Files.createDirectories(secret.getParent());
        Files.writeString(secret, SECRET + "\n");
        env = env(home);
        confined = Confinement.prepare(Mode.REQUIRED, systemPlus(rule(ws, AccessMode.RWX)), LandlockProbe.kernel());
    }

    @AfterEach
    void tearDown() {
        if (confined != null) {
            confined.close();
        }
    }

    @Test
    void cannotReadACredentialUnderHome() {
        String script = "cat \"$HOME/.aws/credentials\"";
        Children.Result r = sh(confined, ws, env, script).assertFailed();
        assertThat(r.out()).doesNotContain("AKIA");
        assertThat(r.err()).contains("Permission denied");
        // The same command unconfined reads it: the denial above is the kernel layer's.
        assertThat(sh(Confinement.off(), ws, env, script).assertOk().out()).contains("AKIAFAKEFAKEFAKE");
    }

    @Test
    void canWriteTheWorkspace() throws IOException {
        sh(confined, ws, env, "echo built > out.txt && mkdir -p a/b && mv out.txt a/b/ && ln -s a/b/out.txt link"
                + " && mkfifo pipe && rm pipe && : > empty && cat link").assertOk();
        assertThat(Files.readString(ws.resolve("a/b/out.txt"))).isEqualTo("built\n");
        assertThat(Files.isSymbolicLink(ws.resolve("link"))).isTrue();
    }

    @Test
    void cannotWriteTempDirsOrHome() {
        sh(confined, ws, env, "echo x > \"" + other + "/f\"").assertFailed();
        sh(confined, ws, env, "echo x > \"$HOME/.bashrc\"").assertFailed();
        sh(confined, ws, env, "mkdir \"$HOME/.ssh2\"").assertFailed();
        sh(confined, ws, env, "echo x > /tmp/magus-landlock-test-$$").assertFailed();
        assertThat(other.resolve("f")).doesNotExist();
        assertThat(home.resolve(".bashrc")).doesNotExist();
        assertThat(home.resolve(".ssh2")).doesNotExist();
    }

    @Test
    void cannotExecOutsideExecRulesNorFromAnRwDirectory() throws IOException {
        Path roDir = Files.createDirectories(root.resolve("ro"));
        Path rwDir = Files.createDirectories(root.resolve("rw"));
        Path trueBin = Children.real(Path.of("/bin/true"));
        for (Path d : List.of(roDir, rwDir, home, ws)) {
            Files.copy(trueBin, d.resolve("tool"), StandardCopyOption.COPY_ATTRIBUTES);
        }
        try (Confinement c = Confinement.prepare(Mode.REQUIRED,
                systemPlus(rule(ws, AccessMode.RWX), rule(roDir, AccessMode.R), rule(rwDir, AccessMode.RW)),
                LandlockProbe.kernel())) {
            assertThat(sh(c, ws, env, "./tool").status()).isZero();
            assertThat(sh(c, ws, env, "\"" + home + "/tool\"").status()).isEqualTo(126);
            assertThat(sh(c, ws, env, "\"" + roDir + "/tool\"").status()).isEqualTo(126);
            assertThat(sh(c, ws, env, "\"" + rwDir + "/tool\"").status()).isEqualTo(126);

            // Spawned directly, the launcher reports the kernel's refusal as MGS2007.
            Spawn s = Launcher.get().spawn(SpawnRequest.of(rwDir.resolve("tool"), List.of(), env, ws), c);
            assertThat(s).isInstanceOf(Spawn.NotStarted.class);
            Spawn.NotStarted n = (Spawn.NotStarted) s;
            assertThat(n.status()).isEqualTo(126);
            assertThat(n.reason()).isEqualTo(Spawn.Reason.EXEC_DENIED);
            assertThat(n.diagnostic().orElseThrow().code()).isEqualTo(Code.MGS2007);
            assertThat(n.diagnostic().orElseThrow().layer()).isEqualTo(Layer.KERNEL);
        }
    }

    @Test
    void aScriptWhoseInterpreterIsOutsideTheExecRulesIsDeniedAndTheInterpreterNamed() throws IOException {
        Path interp = Files.createDirectories(home.resolve("bin")).resolve("dash");
        Files.copy(Children.SH, interp, StandardCopyOption.COPY_ATTRIBUTES);
        Path script = ws.resolve("run.sh");
        Files.writeString(script, "#!" + interp + "\necho ran\n");
        script.toFile().setExecutable(true);
        Spawn s = Launcher.get().spawn(SpawnRequest.of(script, List.of(), env, ws), confined);
        Spawn.NotStarted n = (Spawn.NotStarted) s;
        assertThat(n.status()).isEqualTo(126);
        assertThat(n.diagnostic().orElseThrow().code()).isEqualTo(Code.MGS2007);
        assertThat(n.message()).contains("its interpreter " + interp);
    }

    @Test
    void cannotTruncateAReadOnlyFile() throws IOException {
        int abi = assumeLandlock();
        if (!(abi >= 3)) {
            System.err.println("SKIP ConfinedChildTest: " + "truncate is enforced from ABI 3");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(abi >= 3, "truncate is enforced from ABI 3");
        Path roDir = Files.createDirectories(root.resolve("ro"));
        Path data = roDir.resolve("data");
        Files.writeString(data, "keep\n");
        Files.writeString(ws.resolve("scratch"), "scratch\n");
        try (Confinement c = Confinement.prepare(Mode.REQUIRED,
                systemPlus(rule(ws, AccessMode.RWX), rule(roDir, AccessMode.R)), LandlockProbe.kernel())) {
            sh(c, ws, env, ": > \"" + data + "\"").assertFailed();                 // open(O_TRUNC)
            sh(c, ws, env, "truncate -s 0 \"" + data + "\"").assertFailed();     // open(O_WRONLY) + ftruncate
            if (Files.isExecutable(Path.of("/usr/bin/perl"))) {
                // truncate(2) on a path: denied only because TRUNCATE is handled (ABI 3).
                assertThat(sh(c, ws, env, "perl -e 'truncate(\"" + data + "\", 0) or exit 3'").status()).isEqualTo(3);
                sh(c, ws, env, "perl -e 'truncate(\"scratch\", 0) or exit 3'").assertOk();
                assertThat(ws.resolve("scratch")).isEmptyFile();
            } else {
                System.err.println("truncate(2) by path not exercised: no /usr/bin/perl on this host");
            }
            assertThat(sh(c, ws, env, "cat \"" + data + "\"").assertOk().out()).isEqualTo("keep\n");
        }
        assertThat(data).hasContent("keep");
    }

    @Test
    void aSymlinkInTheWorkspaceGrantsNothing() throws IOException {
        Files.createSymbolicLink(ws.resolve("creds"), secret);
        Files.createSymbolicLink(ws.resolve("home"), home);
        sh(confined, ws, env, "cat creds").assertFailed();
        sh(confined, ws, env, "cat home/.aws/credentials").assertFailed();
        sh(confined, ws, env, "echo pwned > home/.profile").assertFailed();
        sh(confined, ws, env, "cat home/../home/.aws/credentials").assertFailed();
        assertThat(home.resolve(".profile")).doesNotExist();
    }

    @Test
    void grandchildrenStayConfined() {
        String cat = "cat \"$HOME/.aws/credentials\"";
        Children.Result r = sh(confined, ws, env,
                "sh -c '" + cat + "' ; a=$?; (" + cat + ") & wait $!; b=$?; env -i /bin/sh -c '" + cat.replace("$HOME", home.toString())
                        + "'; c=$?; echo \"$a $b $c\"");
        assertThat(r.out()).doesNotContain("AKIA");
        assertThat(r.out().strip().split(" ")).hasSize(3).doesNotContain("0");
    }

    @Test
    void theChildSeesOnlyDescriptorsZeroOneTwo() throws IOException {
        // A descriptor the JVM holds open without O_CLOEXEC must not reach the child.
        try (FileInputStream held = new FileInputStream(secret.toFile())) {
            assertThat(held.getFD().valid()).isTrue();
            Children.Result r = sh(confined, ws, env, "ls /proc/$$/fd").assertOk();
            assertThat(r.out().strip().split("\\s+")).containsExactly("0", "1", "2");
        }
    }

    @Test
    void anUnconfinedChildIsStartedOnTheCallingThreadWithItsState() throws IOException {
        // Mode off spawns right on the caller: no launch thread, nothing set on this thread.
        long before = Launcher.launchThreadsStarted();
        Children.Result r = sh(Confinement.off(), ws, env, "cat /proc/self/status").assertOk();
        java.util.List<String> mine = Files.readAllLines(Path.of("/proc/thread-self/status"));
        java.util.List<String> child = r.out().lines().toList();
        assertThat(ParkedSpares.field(child, "NoNewPrivs")).isEqualTo("0");
        assertThat(ParkedSpares.field(mine, "NoNewPrivs")).isEqualTo("0");
        for (String caps : java.util.List.of("CapBnd", "CapAmb")) {
            assertThat(ParkedSpares.field(child, caps)).as(caps).isEqualTo(ParkedSpares.field(mine, caps));
        }
        assertThat(ParkedSpares.field(mine, "CapEff")).as("the caller keeps its capabilities")
                .isEqualTo(ParkedSpares.field(Files.readAllLines(Path.of("/proc/self/status")), "CapEff"));
        assertThat(Launcher.launchThreadsStarted()).as("launch threads started for a mode-off spawn").isEqualTo(before);
    }

    @Test
    void theChildCannotReadItsParentsEnvironment() {
        Children.Result control = sh(confined, ws, env, "cat /proc/self/status").assertOk();
        assertThat(control.out()).contains("NoNewPrivs:\t1");
        Children.Result r = sh(confined, ws, env, "cat /proc/$PPID/environ /proc/$PPID/maps");
        r.assertFailed();
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("Permission denied");
    }

    @Test
    void theEnvironmentIsExactlyTheOnePrepared() {
        Children.Result r = sh(confined, ws, env, "env").assertOk();
        assertThat(r.out().lines().sorted().toList())
                .containsExactlyInAnyOrder("HOME=" + home, "LC_ALL=C", "PATH=/usr/bin:/bin", "PWD=" + ws);
    }

    @Test
    void argumentsAndEnvironmentArriveByteForByte() {
        java.util.Map<String, String> e = new java.util.HashMap<>(env);
        e.put("EMPTY", "");
        e.put("UNI", "ünï ✓=x");
        String script = "for a; do printf '[%s]' \"$a\"; done; printf '|%s|%s|' \"$EMPTY\" \"$UNI\"; env | grep -c '^EMPTY=$'";
        Children.Result r = Children.run(SpawnRequest.of(Children.SH, List.of("-c", script, "sh", "", "a b", "é", "--"), e, ws),
                confined).assertOk();
        assertThat(r.out()).isEqualTo("[][a b][é][--]||ünï ✓=x|1\n");
    }

    @Test
    void aScriptWithoutShebangRunsThroughSh() throws IOException {
        Path script = ws.resolve("build");
        Files.writeString(script, "echo from-script \"$1\"\n");
        script.toFile().setExecutable(true);
        Children.Result r = Children.run(SpawnRequest.of(script, List.of("arg1"), env, ws), confined).assertOk();
        assertThat(r.out()).isEqualTo("from-script arg1\n");
    }

    @Test
    void missingCommandAndMissingDirectory() {
        Spawn s = Launcher.get().spawn(SpawnRequest.of(ws.resolve("nope"), List.of(), env, ws), confined);
        assertThat(((Spawn.NotStarted) s).status()).isEqualTo(127);
        assertThat(((Spawn.NotStarted) s).reason()).isEqualTo(Spawn.Reason.NOT_FOUND);
        Spawn d = Launcher.get().spawn(SpawnRequest.of(Children.SH, List.of("-c", "true"), env, ws.resolve("gone")), confined);
        assertThat(((Spawn.NotStarted) d).reason()).isEqualTo(Spawn.Reason.NO_WORKING_DIRECTORY);
        Path plain = ws.resolve("plain");
        try {
            Files.writeString(plain, "x");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Spawn p = Launcher.get().spawn(SpawnRequest.of(plain, List.of(), env, ws), confined);
        assertThat(((Spawn.NotStarted) p).status()).isEqualTo(126);
        assertThat(((Spawn.NotStarted) p).reason()).isEqualTo(Spawn.Reason.NOT_EXECUTABLE);
        Spawn f = Launcher.get().spawn(SpawnRequest.of(Children.SH, List.of("-c", "true"), env, plain), confined);
        assertThat(((Spawn.NotStarted) f).reason()).as("a file as working directory").isEqualTo(Spawn.Reason.NO_WORKING_DIRECTORY);
        assertThat(((Spawn.NotStarted) f).status()).isEqualTo(127);
    }

    @Test
    void absentRulePathsAreSkippedAndReported() {
        Rule missing = new Rule(root.resolve("not-there"), AccessMode.RWX, "test:missing");
        try (Confinement c = Confinement.prepare(Mode.REQUIRED, systemPlus(missing), LandlockProbe.kernel())) {
            var ruleset = ((Confinement.Kernel) c).ruleset();
            assertThat(ruleset.skipped()).extracting(s -> s.path()).containsExactly(missing.path());
            assertThat(ruleset.skipped().get(0).reason()).contains("ENOENT");
            assertThat(ruleset.grants()).extracting(g -> g.origin()).contains("core:/usr");
        }
    }
}
