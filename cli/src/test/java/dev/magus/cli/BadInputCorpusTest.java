package dev.magus.cli;

import dev.magus.env.platform.Platform;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.magus.events.Code;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.run.Host;
import dev.magus.policy.HostFacts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed and hostile inputs, each through the real command line ({@link Main#commandLine},
 * its handlers and exit statuses) on a fake host: a magus.yaml of every wrong kind and content,
 * flags, variables and paths. Each must be refused with its code and exit status, the terminal
 * line must say where the bad value came from ({@code magus.yaml:LINE:COLUMN key}, the flag or
 * the variable) and show nothing raw (no control character, no megabyte), and no command may
 * print a stack trace.
 *
 * <p>A case is a name, a setup of the world (files in the workspace, the host's variables, its
 * temp base), the arguments, and what must come out.
 */
class BadInputCorpusTest {
    /** The most a refusal's line may take: the longest honest message plus an echoed value of {@code Echo.MAX}. */
    static final int MAX_LINE = 700;

    @TempDir
    Path dir;

    /** What a case may change before magus runs: the workspace's files, the host's variables and temp base. */
    static final class World {
        final Path ws;
        final Path home;
        final Map<String, String> env = new HashMap<>();
        Path tempBase;

        World(Path root) throws IOException {
            this.home = Files.createDirectories(root.resolve("home")).toRealPath();
            this.ws = Files.createDirectories(root.resolve("ws")).toRealPath();
            this.tempBase = Files.createDirectories(root.resolve("tmp")).toRealPath();
            env.put("HOME", home.toString());
            env.put("USER", "tester");
            env.put("PATH", Optional.ofNullable(System.getenv("PATH")).orElse("/usr/bin:/bin"));
            env.put("TMPDIR", tempBase.toString());
            env.put("XDG_CACHE_HOME", home.resolve(".cache").toString());
        }

        Path yaml(String text) {
            return write("magus.yaml", text.getBytes(StandardCharsets.UTF_8));
        }

        Path write(String name, byte[] bytes) {
            try {
                return Files.write(ws.resolve(name), bytes);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void link(String name, String target) {
            try {
                Files.createSymbolicLink(ws.resolve(name), Path.of(target));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** A path under a regular file: nothing can be created there, whoever asks (root too). */
        Path underAFile(String name) {
            return write(name, new byte[0]).resolve("sub");
        }

        Host host() {
            return new Host(env, home, 1000, Platform.LINUX, List.of(), Optional.empty(), tempBase);
        }
    }

    interface Setup {
        void on(World w) throws Exception;
    }

    /**
     * @param args     the command line; {@code {ws}} stands for the workspace's absolute path
     * @param code     the code the refusal carries; empty for a usage error (no code, exit 125)
     * @param location what the human line names right after the code ({@code magus: CODE LOCATION: ...})
     */
    record Case(String name, Setup setup, List<String> args, Optional<Code> code, int status, String location) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final String REQUIRED = "sandbox:\n  mode: required\n";

    static Case refused(String name, Setup setup, String location, String... args) {
        return new Case(name, setup, List.of(args), Optional.of(Code.MGS2004), 125, location);
    }

    static Case code(Code code, String name, Setup setup, String location, String... args) {
        return new Case(name, setup, List.of(args), Optional.of(code), 125, location);
    }

    static Case usage(String name, Setup setup, String... args) {
        return new Case(name, setup, List.of(args), Optional.empty(), 125, "");
    }

    static Setup yaml(String text) {
        return w -> w.yaml(text);
    }

    static Setup bytes(byte[] content) {
        return w -> w.write("magus.yaml", content);
    }

    static Setup required() {
        return yaml(REQUIRED);
    }

    static Setup allow(String entry) {
        return yaml(REQUIRED + "  allow:\n" + entry);
    }

    static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static Stream<Case> corpus() {
        List<Case> c = new ArrayList<>();
        // magus.yaml that exists but is not a readable regular file: never "no config, mode off".
        c.add(refused("magus.yaml a dangling link", w -> w.link("magus.yaml", "nowhere.yaml"), "magus.yaml", "policy"));
        c.add(refused("magus.yaml a directory", w -> Files.createDirectories(w.ws.resolve("magus.yaml")), "magus.yaml",
                "run", "--", "true"));
        c.add(refused("magus.yaml a fifo (must not block)", w -> mkfifo(w.ws.resolve("magus.yaml")), "magus.yaml",
                "run", "--", "true"));
        c.add(refused("magus.yaml a link to /dev/zero", w -> w.link("magus.yaml", "/dev/zero"), "magus.yaml", "policy"));
        c.add(refused("magus.yaml a link to itself (ELOOP)", w -> w.link("magus.yaml", "magus.yaml"), "magus.yaml",
                "check", "read", "x"));
        c.add(refused("magus.yaml a two-link loop", w -> {
            w.link("magus.yaml", "other.yaml");
            w.link("other.yaml", "magus.yaml");
        }, "magus.yaml", "run", "--", "true"));
        c.add(refused("magus.yaml a link to a directory", w -> w.link("magus.yaml", "/"), "magus.yaml", "policy", "--json"));
        c.add(refused("magus.yaml a link to a kernel file that cannot be read", w -> {
            Assumptions.assumeTrue(Files.exists(Path.of("/proc/self/clear_refs")), "no /proc/self/clear_refs here");
            w.link("magus.yaml", "/proc/self/clear_refs");
        }, "magus.yaml", "policy"));
        c.add(refused("magus.yaml larger than 1 MiB", bytes(("# " + "x".repeat(1021) + "\n").repeat(1100).getBytes(
                StandardCharsets.UTF_8)), "magus.yaml", "policy"));
        c.add(refused("magus.yaml in the parent directory a fifo", w -> {
            mkfifo(w.ws.resolve("magus.yaml"));
            Files.createDirectories(w.ws.resolve("sub"));
        }, "magus.yaml", "check", "--cwd", "sub", "read", "x"));

        // Encoding: not UTF-8, with the position of the first bad byte.
        c.add(refused("not UTF-8: byte 0xff in a value", bytes(latin1("sandbox:\n  mode: requ\u00ffired\n")), "magus.yaml:2:13",
                "policy"));
        c.add(refused("not UTF-8: Latin-1 in a comment", bytes(latin1("# caf\u00e9\nsandbox:\n  mode: off\n")), "magus.yaml:1:6",
                "run", "--", "true"));
        c.add(refused("not UTF-8: a UTF-16 file", bytes("sandbox: {}\n".getBytes(StandardCharsets.UTF_16)), "magus.yaml:1:1",
                "policy"));
        c.add(refused("not UTF-8: a sequence cut at the end", bytes(concat(latin1("sandbox:\n  mode: "), new byte[] {(byte) 0xe2,
                (byte) 0x80})), "magus.yaml:2:9", "check", "read", "x"));
        c.add(refused("a NUL byte in the file", bytes(latin1("sandbox:\n  mode: re\u0000quired\n")), "magus.yaml:2:11",
                "policy"));
        c.add(refused("an escape sequence in the file", bytes(latin1("sandbox:\n  mode: \u001b[2Jrequired\n")),
                "magus.yaml:2:9", "run", "--", "true"));

        // YAML syntax, with its position.
        c.add(refused("YAML: an unclosed flow sequence", yaml("sandbox:\n  mode: [\n"), "magus.yaml:3:1", "policy"));
        c.add(refused("YAML: a tab for indentation", yaml("sandbox:\n\tmode: required\n"), "magus.yaml:2:1", "policy"));
        c.add(refused("YAML: bad indentation", yaml("sandbox:\n  mode: best-effort\n   allow: []\n"), "magus.yaml:3:9",
                "run", "--", "true"));
        c.add(refused("YAML: a list at the top", yaml("- sandbox\n"), "magus.yaml:1:1", "policy"));
        c.add(refused("YAML: sandbox twice", yaml("sandbox: {}\nsandbox: {}\n"), "magus.yaml:2:1 sandbox", "policy"));
        c.add(refused("YAML: an alias bomb", yaml("a: &a [x, x, x, x, x, x, x, x, x]\n"
                + "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                + "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                + "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                + "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                + "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
                + "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"), "magus.yaml", "policy"));
        c.add(refused("YAML: nested 10 000 deep", yaml("sandbox: " + "[".repeat(10_000) + "\n"), "magus.yaml", "policy"));

        // The sandbox section's values, each named by position and key.
        c.add(refused("sandbox.mode unknown", yaml("sandbox:\n  mode: sometimes\n"), "magus.yaml:2:9 sandbox.mode", "policy"));
        c.add(refused("sandbox.mode of 1 MB", yaml("sandbox:\n  mode: " + "a".repeat(1_000_000) + "\n"),
                "magus.yaml:2:9 sandbox.mode", "run", "--", "true"));
        c.add(refused("sandbox.mode with an escape sequence", yaml("sandbox:\n  mode: \"\\e]0;pwned\\a\"\n"),
                "magus.yaml:2:9 sandbox.mode", "policy"));
        c.add(refused("sandbox.mode a list", yaml("sandbox:\n  mode: [required]\n"), "magus.yaml:2:9 sandbox.mode", "check",
                "read", "x"));
        c.add(refused("sandbox.mode null", yaml("sandbox:\n  mode: ~\n"), "magus.yaml:2:9 sandbox.mode", "policy"));
        c.add(refused("sandbox a scalar", yaml("sandbox: required\n"), "magus.yaml:1:10 sandbox", "policy"));
        c.add(refused("sandbox: an unknown key", yaml("sandbox:\n  mood: off\n"), "magus.yaml:2:3 sandbox.mood", "policy"));
        c.add(refused("allow: an unknown access mode", allow("    - path: /opt/x\n      mode: rwz\n"),
                "magus.yaml:5:13 sandbox.allow[0].mode", "policy"));
        c.add(refused("allow: path: ~ (YAML null)", allow("    - path: ~\n"), "magus.yaml:4:13 sandbox.allow[0].path",
                "run", "--", "true"));
        c.add(refused("allow: a NUL in the path", allow("    - path: \"/opt/a\\0b\"\n"), "magus.yaml:4:13 sandbox.allow[0].path",
                "run", "--", "true"));
        c.add(refused("allow: a NUL in the path, policy", allow("    - path: \"/opt/a\\0b\"\n"),
                "magus.yaml:4:13 sandbox.allow[0].path", "check", "write", "x"));
        c.add(refused("allow: a relative path without base", allow("    - path: tools\n"),
                "magus.yaml:4:13 sandbox.allow[0].path", "policy"));
        c.add(refused("allow: an unknown base", allow("    - path: x\n      base: xdgNowhere\n"),
                "magus.yaml:5:13 sandbox.allow[0].base", "policy"));
        c.add(refused("allow: a path leaving its base", allow("    - path: ../../.ssh\n      base: xdgData\n"),
                "magus.yaml:4:13 sandbox.allow[0].path", "policy"));
        c.add(refused("allow: an unknown key", allow("    - path: /opt/x\n      recursive: true\n"),
                "magus.yaml:5:7 sandbox.allow[0].recursive", "policy"));
        c.add(refused("allow: an unset $VAR", allow("    - path: $MAGUS_CORPUS_UNSET/x\n"),
                "magus.yaml:4:13 sandbox.allow[0].path", "policy"));
        c.add(refused("allow: a name with an escape sequence", allow("    - name: \"\\e[2J\"\n      path: /opt/x\n"),
                "magus.yaml:4:13 sandbox.allow[0].name", "policy"));
        c.add(refused("allow: env not a variable name", allow("    - env: \"1-BAD\"\n"),
                "magus.yaml:4:12 sandbox.allow[0].env", "policy"));
        c.add(refused("allow: not a list", yaml(REQUIRED + "  allow: /opt/x\n"), "magus.yaml:3:10 sandbox.allow", "policy"));
        c.add(refused("passthrough: a malformed pattern", yaml(REQUIRED + "  env:\n    passthrough: [\"GO*\"]\n"),
                "magus.yaml:4:19 sandbox.env.passthrough[0]", "run", "--", "true"));

        // Flags and variables: the flag or the variable is the source.
        c.add(refused("--sandbox unknown", required(), "--sandbox", "run", "--sandbox=sometimes", "--", "true"));
        c.add(refused("--sandbox of 1 MB", required(), "--sandbox", "policy", "--sandbox=" + "b".repeat(1 << 20)));
        c.add(refused("MAGUS_SANDBOX=bogus", w -> w.env.put("MAGUS_SANDBOX", "bogus"), "MAGUS_SANDBOX", "run", "--", "true"));
        c.add(refused("MAGUS_SANDBOX with an escape sequence", w -> w.env.put("MAGUS_SANDBOX", "\u001b[31mred"),
                "MAGUS_SANDBOX", "policy"));
        c.add(code(Code.MGS2010, "--sandbox weaker than MAGUS_SANDBOX", w -> w.env.put("MAGUS_SANDBOX", "required"), "--sandbox",
                "run", "--sandbox=off", "--", "true"));
        c.add(refused("--env without =", required(), "--env", "run", "--env", "NOVALUE", "--", "true"));
        c.add(refused("--env with a bad name", required(), "--env 1BAD", "run", "--env", "1BAD=x", "--", "true"));
        c.add(refused("--env with a NUL in the value", required(), "--env GREETING", "run", "--env", "GREETING=a\0b", "--",
                "true"));
        c.add(refused("--unset with a bad name", required(), "--unset A-B", "run", "--unset", "A-B", "--", "true"));
        c.add(refused("--events with a NUL", required(), "--events", "run", "--events", "ev\0.ndjson", "--", "true"));
        c.add(refused("--events in a missing directory", required(), "--events", "run", "--events", "no/such/dir/ev.ndjson", "--",
                "true"));
        c.add(refused("--log with a NUL", required(), "--log", "run", "--log", "log\0.txt", "--", "true"));
        c.add(refused("--log under a file", w -> {
            w.yaml(REQUIRED);
            w.write("afile", new byte[0]);
        }, "--log", "run", "--log", "{ws}/afile/x.log", "--", "true"));
        c.add(refused("a NUL in the command's argument", required(), "CMD argument 1", "run", "--", "echo", "a\0b"));
        c.add(refused("a NUL in check's PATH", required(), "PATH", "check", "write", "x\0y"));
        c.add(refused("a NUL in check --cwd", required(), "--cwd", "check", "--cwd", "a\0b", "read", "x"));

        // The host: home and the temp dir.
        c.add(refused("HOME unset", w -> {
            w.yaml(REQUIRED);
            w.env.remove("HOME");
        }, "HOME", "run", "--", "true"));
        c.add(refused("HOME relative", w -> {
            w.yaml(REQUIRED);
            w.env.put("HOME", "home");
        }, "HOME", "policy"));
        c.add(refused("HOME empty", w -> {
            w.yaml(REQUIRED);
            w.env.put("HOME", "");
        }, "HOME", "check", "read", "x"));
        c.add(refused("TMPDIR a file (policy)", w -> {
            w.yaml(REQUIRED);
            w.tempBase = w.write("tmpfile", new byte[0]);
            w.env.put("TMPDIR", w.tempBase.toString());
        }, "TMPDIR", "policy"));
        c.add(refused("TMPDIR under a file (run)", w -> {
            w.yaml(REQUIRED);
            w.tempBase = w.underAFile("tmpfile");
            w.env.put("TMPDIR", w.tempBase.toString());
        }, "TMPDIR", "run", "--", "true"));
        c.add(refused("java.io.tmpdir under a file, TMPDIR unset (check)", w -> {
            w.yaml(REQUIRED);
            w.tempBase = w.underAFile("tmpfile");
            w.env.remove("TMPDIR");
        }, "java.io.tmpdir", "check", "read", "x"));
        c.add(refused("TMPDIR under a file (demo)", w -> {
            w.tempBase = w.underAFile("tmpfile");
            w.env.put("TMPDIR", w.tempBase.toString());
        }, "TMPDIR", "demo"));
        c.add(refused("XDG_CACHE_HOME under a file", w -> {
            w.yaml(REQUIRED);
            w.env.put("XDG_CACHE_HOME", w.underAFile("cachefile").toString());
        }, "XDG_CACHE_HOME", "run", "--", "true"));

        // Usage errors: no code, exit 125, and no trace or raw bytes either.
        c.add(usage("explain: a 1 MB code with an escape", w -> { }, "explain", "\u001b[2J" + "c".repeat(1 << 20)));
        c.add(usage("probe: an unknown option", w -> { }, "probe", "--bogus\u001b[2J"));
        c.add(usage("check: an unknown operation", w -> { }, "check", "delete\u001b[2J", "x"));
        c.add(usage("an unknown command", w -> { }, "\u001b[2Jnosuch"));
        c.add(usage("run without a command", w -> { }, "run"));
        return c.stream();
    }

    @BeforeEach
    void notAProblemOfThisHost() {
        Assumptions.assumeTrue(System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("linux"),
                "the corpus uses Linux file kinds (fifo, /dev/zero, /proc)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void isRefusedWithItsCodeAndSourceAndNoTrace(Case c) throws Exception {
        World w = new World(dir);
        c.setup().on(w);
        // The fifo cases would hang for ever in open(2) if magus opened the file.
        Cli.Result r = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> Cli.run(Cli.context(w.host(), w.ws, LandlockProbe.fixed(7)),
                        c.args().stream().map(a -> a.replace("{ws}", w.ws.toString())).toArray(String[]::new)));
        String err = r.err();
        String all = r.out() + err;

        assertThat(r.status()).as("exit status of %s\n%s", c.args().get(0), err).isEqualTo(c.status());
        assertThat(all).as("no stack trace").doesNotContain("\tat ").doesNotContain("Exception")
                .doesNotContain("internal error");
        assertThat(all.chars().filter(ch -> ch < 0x20 && ch != '\n' || ch == 0x7f || ch >= 0x80 && ch <= 0x9f))
                .as("no raw control character reaches the terminal: %s", err).isEmpty();
        assertThat(all.lines()).as("every line is short").allSatisfy(l -> assertThat(l.length()).isLessThan(MAX_LINE));
        if (c.code().isPresent()) {
            String head = "magus: " + c.code().get().name() + " " + c.location() + ": ";
            assertThat(err.lines().filter(l -> l.startsWith(head)).toList())
                    .as("a line starting '%s' in:\n%s", head, err).hasSize(1);
            assertThat(err).contains("see 'magus explain " + c.code().get().name() + "'");
        } else {
            assertThat(err).startsWith("magus").doesNotContain("magus: MGS");
        }
        assertThat(r.out()).as("nothing ran").doesNotContain("allowed:");
    }

    static void mkfifo(Path p) throws IOException, InterruptedException {
        Process mk = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
        assertThat(mk.waitFor()).as("mkfifo").isZero();
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** At least forty of them carry a code: the corpus. */
    @org.junit.jupiter.api.Test
    void theCorpusHasAtLeastFortyCodedCases() {
        assertThat(corpus().filter(c -> c.code().isPresent()).count()).isGreaterThanOrEqualTo(40);
        assertThat(corpus().map(Case::name).distinct().count()).isEqualTo(corpus().count());
    }
}
