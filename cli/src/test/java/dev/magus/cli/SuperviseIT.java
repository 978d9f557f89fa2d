package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.supervise.Support;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code magus run --supervise} run by an unprivileged user: the whole magus, not only its child,
 * drops to {@code nobody}, so the supervisor reads the child's memory and the policy with no
 * privilege at all. A silent read of a key is an exact MGS2001 from the supervisor; without
 * the option the same run reports nothing. With a server running, the run is forwarded and
 * supervised there, with the local run's bytes, lines and status.
 */
class SuperviseIT {
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
    static Path magus;

    @TempDir
    Path root;

    /** The magus server the forwarded case started, with what it needs to stop it. */
    private Path serverWs;
    private Map<String, String> serverEnv;

    @BeforeAll
    static void findMagus() {
        magus = BinMagus.find("supervise test");
        String why = !Support.probe().available() ? Support.probe().reason() : "";
        if (!why.isEmpty()) {
            System.err.println("supervise test skipped: " + why);
        }
        Assumptions.assumeTrue(why.isEmpty(), "supervise test skipped: " + why);
    }

    @AfterEach
    void stopServer() {
        if (serverWs != null) {
            BinMagus.run(BinMagus.command(magus, serverWs, serverEnv, "server", "stop"), 60, "magus server stop ended");
        }
    }

    private Path open(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        return dir.toRealPath();
    }

    private BinMagus.Result asNobody(Path ws, Map<String, String> env, String... args) {
        List<String> all = new ArrayList<>(List.of("--reuid=nobody", "--regid=nogroup", "--clear-groups",
                magus.toString()));
        all.addAll(List.of(args));
        ProcessBuilder pb = BinMagus.command(SETPRIV, ws, env, all.toArray(String[]::new));
        return BinMagus.run(pb, 120, "magus ended");
    }

    @Test
    void anUnprivilegedMagusReportsASilentReadOfAKeyExactly() throws IOException {
        String why = !"root".equals(System.getProperty("user.name")) ? "dropping to nobody needs root"
                : !Files.isExecutable(SETPRIV) ? "no " + SETPRIV : "";
        if (!why.isEmpty()) {
            System.err.println("unprivileged supervise test skipped: " + why);
        }
        Assumptions.assumeTrue(why.isEmpty(), "unprivileged supervise test skipped: " + why);
        open(root);
        Path home = open(root.resolve("home"));
        Path ws = open(home.resolve("ws"));
        Path tmp = open(root.resolve("tmp"));
        Path key = Files.writeString(open(home.resolve(".ssh")).resolve("id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Files.setPosixFilePermissions(ws.resolve("magus.yaml"), PosixFilePermissions.fromString("rw-rw-rw-"));
        Map<String, String> env = BinMagus.env(home, tmp);
        String silent = "cat ~/.ssh/id_rsa 2>/dev/null; true";

        BinMagus.Result watched = asNobody(ws, env, "run", "--local", "--supervise", "--events", "-", "--", "sh", "-c", silent);
        assertThat(watched.status()).as(watched.err()).isZero();
        assertThat(watched.out().lines().filter(l -> l.contains("\"code\":\"MGS2001\"")).toList()).singleElement()
                .satisfies(l -> assertThat(l).contains("\"source\":\"supervisor\"").contains(key.toString()));

        BinMagus.Result unwatched = asNobody(ws, env, "run", "--local", "--events", "-", "--", "sh", "-c", silent);
        assertThat(unwatched.status()).as(unwatched.err()).isZero();
        assertThat(unwatched.out()).doesNotContain("MGS2001");
    }

    /**
     * A supervised magus inside a supervised run: the kernel gives the inner one no listener
     * (EBUSY). Best-effort says so and runs its child, which the outer supervisor still sees;
     * required refuses with MGS2012 before anything starts.
     */
    @Test
    void aSupervisedRunInsideOneDegradesOrIsRefused() throws IOException {
        Path home = Files.createDirectories(root.resolve("home")).toRealPath();
        Path ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        Path tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Map<String, String> env = BinMagus.env(home, tmp);

        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: best-effort\n");
        BinMagus.Result degraded = BinMagus.run(BinMagus.command(magus, ws, env, "run", "-q", "--local", "--supervise", "--",
                magus.toString(), "run", "-q", "--local", "--supervise", "--", "sh", "-c", "echo inner"), 120, "magus ended");
        assertThat(degraded.status()).as(degraded.err()).isZero();
        assertThat(degraded.out()).isEqualTo("inner\n");
        assertThat(degraded.err()).contains("magus: this run is not supervised: it runs inside a supervised run");

        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        BinMagus.Result refused = BinMagus.run(BinMagus.command(magus, ws, env, "run", "-q", "--local", "--supervise", "--",
                magus.toString(), "run", "-q", "--local", "--supervise", "--", "sh", "-c", "echo inner"), 120, "magus ended");
        assertThat(refused.status()).as(refused.err()).isEqualTo(125);
        assertThat(refused.out()).doesNotContain("inner");
        assertThat(refused.err()).contains("MGS2012").contains("--supervise refused in required mode: it runs inside a supervised run");
    }

    /**
     * A forwarded {@code --supervise} run, through the Java and the native client (one not built
     * skips, saying why): the server runs it (its count of started runs grows), the child still
     * gets its refusal, and the supervisor's MGS2001 is the line a local run prints, with the same
     * bytes and status; nothing says the run was handed back.
     */
    @ParameterizedTest
    @ValueSource(strings = {"java", "native"})
    void aForwardedRunIsSupervisedByTheServerAsALocalRunIs(String client) throws IOException {
        Path nativeClient = magus.getParent().resolve("../cli/target/native/magus-client").normalize();
        if (client.equals("native") && !Files.isExecutable(nativeClient)) {
            String why = "forwarded --supervise through the native client skipped: " + nativeClient
                    + " was not built (the build found no C compiler, cc)";
            System.err.println(why);
            Assumptions.assumeTrue(false, why);
        }
        Path home = Files.createDirectories(root.resolve("home")).toRealPath();
        Path ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        Path tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Files.writeString(Files.createDirectories(home.resolve(".ssh")).resolve("id_rsa"),
                "-----BEGIN OPENSSH PRIVATE KEY-----\n");
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Map<String, String> env = BinMagus.env(home, tmp);
        env.put("MAGUS_CLIENT", client);
        String silent = "cat \"$HOME/.ssh/id_rsa\" 2>/dev/null; echo $?";
        // The environment's notice (MGS2003) is said once per set of dropped variables: by this run, not the compared ones.
        BinMagus.Result first = BinMagus.run(BinMagus.command(magus, ws, env, "run", "--local", "--", "true"), 120, "magus ended");
        assertThat(first.status()).as(first.toString()).isZero();
        BinMagus.Result local = BinMagus.run(BinMagus.command(magus, ws, env, "run", "--local", "--supervise", "--",
                "sh", "-c", silent), 120, "magus ended");
        assertThat(local.status()).as(local.toString()).isZero();
        assertThat(local.out()).isEqualTo("1\n");
        assertThat(local.err().lines().toList()).as(local.toString()).singleElement()
                .satisfies(l -> assertThat(l).startsWith("magus: MGS2001 ").contains("~/.ssh/id_rsa"));

        BinMagus.Result started = BinMagus.run(BinMagus.command(magus, ws, env, "server", "start"), 120, "server start ended");
        assertThat(started.status()).as(started.toString()).isZero();
        serverWs = ws;
        serverEnv = env;
        double before = startedRuns(ws, env);
        BinMagus.Result forwarded = BinMagus.run(BinMagus.command(magus, ws, env, "run", "--supervise", "--",
                "sh", "-c", silent), 120, "magus ended");
        assertThat(startedRuns(ws, env)).as("the server ran it").isEqualTo(before + 1);
        assertThat(forwarded.status()).as(forwarded.toString()).isEqualTo(local.status());
        assertThat(forwarded.out()).isEqualTo(local.out());
        assertThat(forwarded.err()).isEqualTo(local.err());

        BinMagus.Result verbose = BinMagus.run(BinMagus.command(magus, ws, env, "run", "-v", "--supervise", "--",
                "sh", "-c", silent), 120, "magus ended");
        assertThat(verbose.err()).as(verbose.toString()).contains("MGS2001").doesNotContain("served by this process only");
        assertThat(startedRuns(ws, env)).as("the server ran the verbose one too").isEqualTo(before + 2);
    }

    /** The server's count of forwarded runs it started. */
    private static double startedRuns(Path ws, Map<String, String> env) {
        String status = BinMagus.run(BinMagus.command(magus, ws, env, "server", "status"), 60, "server status ended").out();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("magus\\.server\\.forwarded\\{outcome=started\\}\\s+(\\d+)")
                .matcher(status);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
