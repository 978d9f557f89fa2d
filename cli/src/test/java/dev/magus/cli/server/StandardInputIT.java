package dev.magus.cli.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The child reads magus's standard input on every path unless {@code --no-stdin}: piped into a
 * forwarded run it arrives whole (it used to be dropped, and {@code wc -l} counted 0), and a
 * closed one is an empty one (the JVM's class image, which it opened as descriptor 0, used to
 * be pumped into the child, which never ended).
 */
class StandardInputIT {
    @TempDir
    Path root;

    record Ran(int status, String out) {
    }

    /** {@code script} by {@code sh -c} in the workspace; {@code $MAGUS} is bin/magus. */
    Ran sh(Map<String, String> env, String script) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true)
                .directory(root.resolve("ws").toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.environment().put("MAGUS", Path.of("..", "bin", "magus").toAbsolutePath().normalize().toString());
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process p = pb.start();
        java.util.concurrent.CompletableFuture<String> out = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        boolean ended = p.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        assertThat(ended).as("ended: " + script).isTrue();
        return new Ran(p.exitValue(), out.get(10, TimeUnit.SECONDS));
    }

    /** The child's output without magus's own lines. */
    private static String child(Ran r) {
        return String.join("\n", r.out().lines().filter(l -> !l.startsWith("magus: ")).toList()).trim();
    }

    /** A workspace, a home and a runtime dir under the test's root, and the environment that names them. */
    private Map<String, String> workspace() throws Exception {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        Assumptions.assumeTrue(linux, "stdin test skipped: needs Linux (os " + System.getProperty("os.name") + ")");
        Path home = Files.createDirectories(root.resolve("home"));
        Path runtime = Files.createDirectories(root.resolve("runtime"));
        Files.createDirectories(root.resolve("ws"));
        Files.writeString(root.resolve("ws/magus.yaml"), "sandbox:\n  mode: best-effort\n");
        Map<String, String> env = new java.util.HashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("HOME", home.toString());
        env.put("XDG_RUNTIME_DIR", runtime.toString());
        env.put("TMPDIR", Files.createDirectories(root.resolve("tmp")).toString());
        if (System.getenv("JAVA_HOME") != null) {
            env.put("JAVA_HOME", System.getenv("JAVA_HOME"));
        }
        return env;
    }

    @Test
    void stdinReachesTheChildOnEveryPathAndAClosedOneIsEmpty() throws Exception {
        Map<String, String> env = workspace();
        // No bin/magus: the JVM itself finds descriptor 0 closed, as a caller of Main may leave it.
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path target = Path.of("target").toAbsolutePath();
        String direct = java + " -cp " + target.resolve("cli.jar") + ":" + target.resolve("lib") + "/* dev.magus.cli.Main";
        assertThat(child(sh(env, direct + " run -- wc -c <&-"))).isEqualTo("0");
        for (String path : List.of("--local", "")) {
            assertThat(child(sh(env, "\"$MAGUS\" run " + path + " -- wc -c <&-"))).as("closed, " + path).isEqualTo("0");
            assertThat(child(sh(env, "seq 1 200000 | \"$MAGUS\" run " + path + " -- wc -l"))).isEqualTo("200000");
            assertThat(child(sh(env, "\"$MAGUS\" run " + path + " -- wc -c < /"))).as("unreadable, " + path).isEqualTo("0");
        }
        Ran started = sh(env, "\"$MAGUS\" server start");
        assertThat(started.status()).as(started.out()).isZero();
        try {
            for (String client : List.of("native", "java")) {
                env.put("MAGUS_CLIENT", client);
                Ran piped = sh(env, "seq 1 200000 | \"$MAGUS\" run -- wc -l");
                assertThat(child(piped)).as(client + " forwarded: " + piped.out()).isEqualTo("200000");
                assertThat(child(sh(env, "seq 1 200000 | \"$MAGUS\" run --no-stdin -- wc -l"))).isEqualTo("0");
                assertThat(child(sh(env, "seq 1 200000 | \"$MAGUS\" run -q -- wc -l"))).isEqualTo("200000");
                assertThat(child(sh(env, "\"$MAGUS\" run -- wc -c <&-"))).as(client + ", closed").isEqualTo("0");
                // An input that cannot be read ends, as locally, rather than leaving the child waiting.
                assertThat(child(sh(env, "\"$MAGUS\" run -- wc -c < /"))).as(client + ", unreadable").isEqualTo("0");
                assertThat(child(sh(env, "\"$MAGUS\" run -vq -- wc -c < /"))).as(client + ", -vq, unreadable").isEqualTo("0");
                assertThat(child(sh(env, direct + " run -- wc -c <&-"))).as(client + ", closed, no bin/magus")
                        .isEqualTo("0");
            }
            String status = sh(env, "\"$MAGUS\" server status").out();
            // Six per client: the full command line, started without bin/magus, never forwards (it runs here).
            assertThat(status).containsPattern("magus\\.server\\.forwarded\\{outcome=started\\}\\s+12\\b");
        } finally {
            sh(env, "\"$MAGUS\" server stop");
        }
    }

    /**
     * {@code script} run by {@code sh -c} with a new pseudo-terminal as its standard input and
     * output (python3's {@code pty.fork()}), so that magus starts under a terminal as a person's
     * shell starts it; what the terminal showed, without its carriage returns.
     */
    private Ran underTerminal(Map<String, String> env, String script) throws Exception {
        String py = "import os, pty, sys\n"
                + "pid, fd = pty.fork()\n"
                + "if pid == 0:\n"
                + "    os.execvp('sh', ['sh', '-c', sys.argv[1]])\n"
                + "out = b''\n"
                + "while True:\n"
                + "    try:\n"
                + "        b = os.read(fd, 4096)\n"
                + "    except OSError:\n"
                + "        break\n"
                + "    if not b:\n"
                + "        break\n"
                + "    out += b\n"
                + "_, status = os.waitpid(pid, 0)\n"
                + "sys.stdout.write(out.decode('utf-8', 'replace').replace('\\r', ''))\n"
                + "sys.exit(os.waitstatus_to_exitcode(status))\n";
        Path helper = Files.writeString(root.resolve("under-pty.py"), py);
        return sh(env, "python3 " + helper + " '" + script.replace("'", "'\\''") + "'");
    }

    /** Skips, saying why, where python3 cannot open a pseudo-terminal. */
    private void assumeTerminal(Map<String, String> env) throws Exception {
        Ran probe = sh(env, "python3 -c 'import os, pty; m, s = os.openpty(); print(os.isatty(s))'");
        String why = "terminal test skipped: python3 cannot open a pseudo-terminal here (" + probe.out().trim() + ")";
        if (!probe.out().trim().equals("True")) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(probe.out().trim().equals("True"), why);
    }

    @Test
    void underATerminalTheChildsInputIsThatTerminalAndItCannotTypeIntoIt() throws Exception {
        Map<String, String> env = workspace();
        assumeTerminal(env);
        String tty = "test -t 0 && echo stdin-tty || echo stdin-notty";
        // In the workspace, which the run may read: it tries to type into its standard input.
        Files.writeString(root.resolve("ws/sti.py"), "import fcntl, termios\n"
                + "try:\n    fcntl.ioctl(0, termios.TIOCSTI, b'x'); print('sti ok')\n"
                + "except OSError as e:\n    print('sti', e.errno)\n");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "skipped: no /usr/bin/python3 in the core footprint");
        String sti = "/usr/bin/python3 sti.py";
        Ran local = underTerminal(env, "\"$MAGUS\" run --local -q -- sh -c '" + tty + "'");
        assertThat(local.out().lines()).as(local.out()).contains("stdin-tty");
        Ran typed = underTerminal(env, "\"$MAGUS\" run --local -q -- " + sti);
        assertThat(typed.out().lines()).as(typed.out()).contains("sti 1");
        Ran started = sh(env, "\"$MAGUS\" server start");
        assertThat(started.status()).as(started.out()).isZero();
        try {
            // The native client passes its terminal to the server, which gives it to the child.
            env.put("MAGUS_CLIENT", "native");
            Ran forwarded = underTerminal(env, "\"$MAGUS\" run -q -- sh -c '" + tty + "'");
            assertThat(forwarded.out().lines()).as(forwarded.out()).contains("stdin-tty");
            Ran forwardedSti = underTerminal(env, "\"$MAGUS\" run -q -- " + sti);
            assertThat(forwardedSti.out().lines()).as(forwardedSti.out()).contains("sti 1");
            // The Java client copies its input as frames: no terminal in the run, and -v says why.
            env.put("MAGUS_CLIENT", "java");
            Ran java = underTerminal(env, "\"$MAGUS\" run -q -- sh -c '" + tty + "'");
            assertThat(java.out().lines()).as(java.out()).contains("stdin-notty");
            Ran said = underTerminal(env, "\"$MAGUS\" run -v -- true");
            assertThat(said.out()).contains("reaches this run as a copy").contains("this client cannot pass descriptors");
            String status = sh(env, "\"$MAGUS\" server status").out();
            assertThat(status).containsPattern("magus\\.server\\.forwarded\\{outcome=started\\}\\s+4\\b");
        } finally {
            sh(env, "\"$MAGUS\" server stop");
        }
    }
}
