package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One run, one meaning: every run of a corpus is run with {@code --local} and forwarded to a real
 * server on its real Unix socket, through the native client and through the Java command line,
 * as a person types it (bin/magus), and every observable is compared byte for byte: the exit
 * status, stdout, stderr (so the diagnostics' codes, subjects and layers, and the refusals), and
 * the files the run left in the workspace and in the one directory outside it a run may be
 * granted. A forwarded run is the local run, only faster.
 */
class PathDifferentialIT {
    @TempDir
    Path root;

    private Path magus;
    private Path home;
    private Path ws;
    private Path bare;
    private Path tmp;
    private Map<String, String> env;

    /** One run of the corpus: the words after {@code run}, where it starts, its stdin, its extra environment. */
    record Case(String name, String dir, List<String> args, byte[] stdin, Map<String, String> env, boolean signalled) {
        Case in(byte[] bytes) {
            return new Case(name, dir, args, bytes, env, signalled);
        }

        Case at(String d) {
            return new Case(name, d, args, stdin, env, signalled);
        }

        Case with(String k, String v) {
            Map<String, String> e = new LinkedHashMap<>(env);
            e.put(k, v);
            return new Case(name, dir, args, stdin, e, signalled);
        }

        /** Sent SIGTERM once the child said {@code ready} on stdout. */
        Case terminated() {
            return new Case(name, dir, args, stdin, env, true);
        }
    }

    /** What a run showed and left behind. */
    record Seen(int status, byte[] out, byte[] err, Map<String, String> files) {
    }

    private static Case run(String name, String... args) {
        return new Case(name, "ws", List.of(args), null, Map.of(), false);
    }

    private List<Case> corpus() {
        String key = home.resolve(".ssh/id_rsa").toString();
        String ssh = home.resolve(".ssh").toString();
        String out = home.resolve("out").toString();
        String tool = home.resolve("bin/tool").toString();
        String bin = magus.toString();
        byte[] lines = "one\ntwo\nthree\n".getBytes(StandardCharsets.UTF_8);
        byte[] many = seq(200_000);
        return List.of(
                run("true", "--", "true"),
                run("false", "--", "false"),
                run("exit status", "--", "sh", "-c", "exit 7"),
                run("exit 255", "--", "sh", "-c", "exit 255"),
                run("echo", "--", "echo", "hello"),
                run("no last newline", "--", "printf", "no newline"),
                run("carriage returns", "--", "printf", "a\\r\\nb\\n"),
                run("both streams", "--", "sh", "-c", "echo out; echo err >&2; echo out2"),
                run("large stdout", "--", "sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' x"),
                run("large stderr", "--", "sh", "-c", "seq 1 100000 >&2"),
                run("many lines", "--", "seq", "1", "150000"),
                run("binary stdout", "--", "cat", "data.bin"),
                run("binary stderr", "--", "sh", "-c", "cat data.bin >&2"),
                run("arguments as given", "--", "printf", "[%s]", "a b", "é", "", "-v", "--local", "*"),
                run("stdin pipe", "--", "wc", "-l").in(lines),
                run("stdin large", "--", "wc", "-l").in(many),
                run("stdin binary", "--", "cat").in(binary()),
                run("stdin no last newline", "--", "cat").in("tail".getBytes(StandardCharsets.UTF_8)),
                run("stdin explicit", "--stdin", "--", "wc", "-c").in(lines),
                run("no-stdin", "--no-stdin", "--", "wc", "-c").in(lines),
                run("stdin empty", "--", "wc", "-c"),
                // What the child's input is on every path: a pipe, no terminal.
                run("stdin what it is", "--", "sh", "-c", "test -p /dev/stdin && echo pipe; test -t 0 || echo no-tty")
                        .in(lines),
                run("read denied", "--", "cat", key),
                run("list denied", "--", "ls", ssh),
                run("write denied", "--", "sh", "-c", "echo x > " + home.resolve("leak")),
                run("exec denied", "--", tool),
                run("exec denied in a shell", "--", "sh", "-c", tool + "; echo after=$?"),
                run("write in the workspace", "--", "sh", "-c", "echo made > made.txt"),
                run("write a tree", "--", "sh", "-c", "mkdir -p d/e && printf x > d/e/f && rm -f gone.txt"),
                run("missing command", "--", "no-such-command-here"),
                run("missing path", "--", "./nope"),
                run("not executable", "--", "./data.bin"),
                run("bad sandbox", "--sandbox=sometimes", "--", "true"),
                run("bad sandbox word", "--sandbox", "never", "--", "true"),
                run("bad allow mode", "--allow", "src:zz", "--", "true"),
                run("bad allow empty", "--allow=", "--", "true"),
                run("unknown option", "--bogus", "--", "true"),
                run("unknown short option", "-x", "--", "true"),
                run("unknown option close to one", "--verbos", "--", "true"),
                run("unknown option with a value", "--sandbx=off", "--", "true"),
                run("option without value", "--env"),
                run("env without =", "--env", "FOO", "--", "true"),
                run("no command", "--"),
                run("nothing at all"),
                run("env", "--env", "FOO=bar", "--", "sh", "-c", "echo \"$FOO\""),
                // No shell in the child, and none in the caller's environment: PWD and SHLVL as magus leaves them.
                run("PWD and SHLVL unset by the caller", "--", "printenv", "PWD", "SHLVL"),
                run("PWD of another directory", "--", "printenv", "PWD", "SHLVL").with("PWD", "/").with("SHLVL", "4"),
                run("SHLVL padded", "--", "printenv", "SHLVL").with("SHLVL", " 04 "),
                run("SHLVL not a number", "--", "printenv", "SHLVL").with("SHLVL", "abc"),
                run("env inline", "--env=FOO=b=c", "--", "sh", "-c", "echo \"$FOO\""),
                run("env twice", "--env", "A=1", "--env", "A=2", "--", "sh", "-c", "echo \"$A\""),
                run("unset", "--unset", "LANG", "--", "sh", "-c", "echo \"${LANG-unset}\""),
                run("unset home", "--unset=HOME", "--", "sh", "-c", "echo \"${HOME-unset}\""),
                run("pass", "--pass", "MY_TOKEN", "--", "sh", "-c", "echo \"${MY_TOKEN-none}\"").with("MY_TOKEN", "t0k"),
                run("allow read", "--allow", ssh, "--", "cat", key),
                run("allow ro write", "--allow", ssh + ":ro", "--", "sh", "-c", "echo x > " + ssh + "/new"),
                run("allow rw", "--allow", out + ":rw", "--", "sh", "-c", "echo granted > " + out + "/g.txt"),
                run("allow relative", "--allow=../home/.ssh", "--", "cat", key),
                run("sandbox off", "--sandbox=off", "--", "cat", key),
                run("sandbox off quiet", "-q", "--sandbox", "off", "--", "echo", "quiet"),
                run("sandbox best-effort", "--sandbox=best-effort", "--", "cat", key),
                run("sandbox required", "--sandbox", "required", "--", "echo", "req"),
                run("quiet", "-q", "--", "echo", "q"),
                run("verbose", "-v", "--", "echo", "v"),
                run("verbose denial", "--verbose", "--", "cat", key),
                run("quiet verbose", "-vq", "--", "cat", key),
                run("quiet verbose long", "--quiet", "--verbose", "--", "echo", "qv"),
                run("no workspace", "--", "echo", "bare").at("bare"),
                run("no workspace quiet", "-q", "--", "echo", "bare").at("bare"),
                run("subdirectory", "--", "sh", "-c", "pwd").at("ws/src"),
                run("floor", "--sandbox=off", "--", "true").with("MAGUS_SANDBOX", "best-effort"),
                run("killed by TERM", "--", "sh", "-c", "kill -TERM $$"),
                run("killed by KILL", "--", "sh", "-c", "kill -KILL $$"),
                run("killed by INT", "--", "sh", "-c", "kill -INT $$"),
                run("SIGTERM to magus", "--", "sh", "-c",
                        "trap 'echo got-term; exit 3' TERM; echo ready; while :; do :; done").terminated(),
                run("pipe closed early", "--", "sh", "-c", "seq 1 1000000 | head -1"),
                run("nested", "--", bin, "run", "--", "echo", "nested"),
                run("nested allow", "--", bin, "run", "--allow", ssh, "--", "cat", key),
                run("nested weaker", "--", bin, "run", "--sandbox=off", "--", "true"),
                run("nested verbose", "-v", "--", bin, "run", "-v", "--", "sh", "-c", "echo ${MAGUS_PROC_TOKEN:-none}"),
                run("fail on denial", "--fail-on-denial", "--", "sh", "-c", "cat " + key + "; true"),
                run("fail on denial, clean", "--fail-on-denial", "--", "echo", "clean"),
                run("quiet denial", "-q", "--", "sh", "-c", "cat " + key + "; echo after"),
                run("allow a credential store rw", "--allow", ssh + ":rw", "--", "true"),
                run("help", "--help"));
    }

    @Test
    void aForwardedRunIsTheLocalRun() throws Exception {
        magus = BinMagus.find("the path-differential test");
        home = Files.createDirectories(root.resolve("home")).toRealPath();
        tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        bare = Files.createDirectories(root.resolve("bare")).toRealPath();
        Path runtime = Files.createDirectories(root.resolve("runtime"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Files.createDirectories(ws.resolve("src"));
        Files.write(ws.resolve("data.bin"), binary());
        Files.writeString(ws.resolve("gone.txt"), "soon gone\n");
        Files.createDirectories(home.resolve(".ssh"));
        Files.writeString(home.resolve(".ssh/id_rsa"), "KEY-c0ffee\n");
        Files.createDirectories(home.resolve("out"));
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("bin/tool"), "#!/bin/sh\necho tool ran\n");
        home.resolve("bin/tool").toFile().setExecutable(true);
        env = BinMagus.env(home, tmp);
        env.put("XDG_RUNTIME_DIR", runtime.toString());
        if (System.getenv("JAVA_HOME") != null) {
            env.put("JAVA_HOME", System.getenv("JAVA_HOME"));
        }
        Map<String, String> before = files();
        Seen started = magus(env, ws, null, false, "server", "start");
        assertThat(started.status()).as(new String(started.err(), StandardCharsets.UTF_8)).isZero();
        List<String> differences = new ArrayList<>();
        List<Case> corpus = corpus();
        int runs = 0;
        java.util.Set<String> warmed = new java.util.HashSet<>();
        try {
            for (Case c : corpus) {
                // MGS2003 is said on the first run that drops a given set of variables in a
                // directory, whichever path that run takes: one run first, so both paths meet it seen.
                if (warmed.add(c.dir() + c.env())) {
                    once(c.env().isEmpty() ? run("warm-up", "--", "true").at(c.dir()) : c, true, "native", before);
                }
                Seen local = once(c, true, "native", before);
                // The Java path costs a JVM per run: every third case, so the corpus stays within CI's minutes.
                boolean java = corpus.indexOf(c) % 3 == 1;
                for (String client : java ? List.of("native", "java") : List.of("native")) {
                    Seen forwarded = once(c, false, client, before);
                    List<String> d = compare(c.name() + " [" + client + "]", local, forwarded);
                    d.forEach(System.err::println);
                    differences.addAll(d);
                    runs++;
                }
            }
            // Forwarded in earnest: the runs the server started, not the clients' own fallbacks.
            double served = counter("started");
            assertThat(served).as("runs the server started, of %s forwarded", runs).isGreaterThanOrEqualTo(runs * 0.6);
        } finally {
            magus(env, ws, null, false, "server", "stop");
        }
        assertThat(corpus).hasSizeGreaterThanOrEqualTo(60);
        assertThat(differences).as("differences between forwarded and --local runs").isEmpty();
    }

    private Seen once(Case c, boolean local, String client, Map<String, String> before) throws Exception {
        Map<String, String> e = new LinkedHashMap<>(env);
        e.putAll(c.env());
        e.put("MAGUS_CLIENT", client);
        List<String> args = new ArrayList<>();
        args.add("run");
        if (local) {
            args.add("--local");
        }
        args.addAll(c.args());
        Seen s = magus(e, root.resolve(c.dir()), c.stdin(), c.signalled(), args.toArray(String[]::new));
        Seen seen = new Seen(s.status(), s.out(), s.err(), files());
        restore(before);
        return seen;
    }

    private static List<String> compare(String name, Seen local, Seen forwarded) {
        List<String> d = new ArrayList<>();
        if (local.status() != forwarded.status()) {
            d.add(name + ": exit " + local.status() + " locally, " + forwarded.status() + " forwarded");
        }
        if (!Arrays.equals(local.out(), forwarded.out())) {
            d.add(name + ": stdout differs\n  local:     " + shown(local.out()) + "\n  forwarded: " + shown(forwarded.out()));
        }
        if (!Arrays.equals(local.err(), forwarded.err())) {
            d.add(name + ": stderr differs\n  local:     " + shown(local.err()) + "\n  forwarded: " + shown(forwarded.err()));
        }
        if (!local.files().equals(forwarded.files())) {
            d.add(name + ": files differ\n  local:     " + local.files() + "\n  forwarded: " + forwarded.files());
        }
        return d;
    }

    private static String shown(byte[] b) {
        String s = new String(b, 0, Math.min(b.length, 600), StandardCharsets.UTF_8).replace("\n", "\\n");
        return b.length + " bytes: " + s;
    }

    /** bin/magus {@code args} in {@code dir}, with exactly {@code e}, {@code stdin} piped in (or /dev/null). */
    private Seen magus(Map<String, String> e, Path dir, byte[] stdin, boolean terminate, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(magus.toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().clear();
        pb.environment().putAll(e);
        if (stdin == null) {
            pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        }
        Process p = pb.start();
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        CompletableFuture<byte[]> out;
        if (terminate) {
            // Wait for the child's word, then SIGTERM to magus itself, as a terminal's kill would send it.
            InputStream o = p.getInputStream();
            byte[] ready = new byte[6];
            int n = o.readNBytes(ready, 0, 6);
            p.toHandle().destroy(); // SIGTERM; Process.destroy would also close the streams
            out = CompletableFuture.supplyAsync(() -> concat(Arrays.copyOf(ready, n), read(o)));
        } else {
            out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        }
        if (stdin != null) {
            try (OutputStream in = p.getOutputStream()) {
                in.write(stdin);
            } catch (IOException ignored) {
                // the child stopped reading: what it read is what it shows
            }
        }
        boolean done = p.waitFor(60, TimeUnit.SECONDS);
        if (!done) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        assertThat(done).as("bin/magus %s ended", String.join(" ", args)).isTrue();
        return new Seen(p.exitValue(), out.get(30, TimeUnit.SECONDS), err.get(30, TimeUnit.SECONDS), Map.of());
    }

    private double counter(String outcome) throws Exception {
        Seen status = magus(env, ws, null, false, "server", "status");
        Matcher m = Pattern.compile("magus\\.server\\.forwarded\\{outcome=" + outcome + "\\}\\s+(\\d+)")
                .matcher(new String(status.out(), StandardCharsets.UTF_8));
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /** The workspace's files and the granted-only directory's, by path, with their bytes' digest. */
    private Map<String, String> files() throws IOException {
        Map<String, String> m = new TreeMap<>();
        for (Path top : List.of(ws, home.resolve("out"), home.resolve(".ssh"), home)) {
            try (Stream<Path> walk = Files.walk(top, top.equals(home) ? 1 : Integer.MAX_VALUE)) {
                for (Path p : (Iterable<Path>) walk::iterator) {
                    String key = root.relativize(p).toString();
                    if (Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                        m.put(key, Integer.toHexString(Arrays.hashCode(Files.readAllBytes(p))));
                    } else if (!top.equals(home) || !Files.isDirectory(p)) {
                        m.put(key, Files.isDirectory(p) ? "dir" : "other");
                    }
                }
            }
        }
        return m;
    }

    /** Back to the files as they were before the corpus: what a run added removed, what it changed or removed put back. */
    private void restore(Map<String, String> before) throws IOException {
        Map<String, String> now = files();
        List<Path> added = now.keySet().stream().filter(k -> !before.containsKey(k)).map(root::resolve)
                .sorted(Comparator.comparingInt(Path::getNameCount).reversed()).toList();
        for (Path p : added) {
            Files.deleteIfExists(p);
        }
        if (!Files.exists(ws.resolve("gone.txt"))) {
            Files.writeString(ws.resolve("gone.txt"), "soon gone\n");
        }
        assertThat(files()).as("restored").isEqualTo(before);
    }

    private static byte[] binary() {
        byte[] b = new byte[256 * 64];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i * 7 + i / 256);
        }
        return b;
    }

    private static byte[] seq(int n) {
        StringBuilder s = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            s.append(i).append('\n');
        }
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    private static byte[] read(InputStream in) {
        try {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
