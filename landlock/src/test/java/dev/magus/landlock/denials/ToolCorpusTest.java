package dev.magus.landlock.denials;

import dev.magus.events.DetailKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.landlock.denials.infer.CommandLine;
import dev.magus.landlock.denials.infer.DenialParser;
import dev.magus.landlock.denials.infer.KernelDenials;
import dev.magus.landlock.denials.infer.ProcCwd;
import dev.magus.events.Operation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The corpus, for real: each tool runs as a Landlock-confined child (through the test-only
 * {@code confine.py}) against a fake home the confinement leaves out, and the lines it really
 * prints must give exactly one diagnostic with the right code and path. What was captured is
 * written to {@code target/denials-corpus.txt} in the format of the checked-in corpus.
 */
class ToolCorpusTest {

    @TempDir
    static Path root;

    private static Fixture fixture;
    private static int abi;
    private static final Map<String, String> CAPTURED = new LinkedHashMap<>();

    @BeforeAll
    static void setUp() {
        abi = Confinement.abi();
        fixture = Fixture.create(root);
    }

    @AfterAll
    static void writeCorpus() throws IOException {
        if (CAPTURED.isEmpty()) {
            return;
        }
        Path out = Path.of("target", "denials-corpus.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, String.join("", CAPTURED.values()), StandardCharsets.UTF_8);
    }

    static void assumeLandlock() {
        if (abi < 1) {
            String reason = "Landlock is not available here (or no python3 for the test helper): "
                    + "the corpus cannot be captured from confined children";
            System.err.println("SKIPPED: " + reason);
            Assumptions.assumeTrue(false, reason);
        }
    }

    @TestFactory
    Stream<DynamicTest> each_tool_denial_becomes_exactly_one_diagnostic() {
        return Scenario.all().stream().map(s -> DynamicTest.dynamicTest(s.name(), () -> runScenario(s)));
    }

    private void runScenario(Scenario s) throws IOException {
        assumeLandlock();
        Optional<Path> tool = resolve(s.argv().get(0));
        if (tool.isEmpty()) {
            String reason = s.argv().get(0) + " is not installed here; scenario '" + s.name() + "' skipped";
            System.err.println("SKIPPED: " + reason);
            Assumptions.assumeTrue(false, reason);
        }
        List<String> argv = new ArrayList<>();
        // Tools on PATH run by name, as a build would run them (their messages then start with the name).
        String name = s.argv().get(0);
        argv.add(name.equals("python3") || name.equals("java") ? tool.get().toString() : name);
        s.argv().stream().skip(1).map(fixture::expand).forEach(argv::add);

        List<String> grants = new ArrayList<>(s.grants().stream().map(fixture::expand).toList());
        Map<String, String> env = new HashMap<>();
        env.put("HOME", fixture.home().toString());
        env.put("TMPDIR", fixture.ws().resolve("tmp").toString());
        installPrefix(tool.get()).ifPresent(p -> grants.add("rx:" + p));
        if (s.argv().get(0).equals("cargo") || s.argv().get(0).equals("rustc")) {
            String userHome = System.getProperty("user.home");
            String rustup = System.getenv().getOrDefault("RUSTUP_HOME", userHome + "/.rustup");
            String cargo = System.getenv().getOrDefault("CARGO_HOME", userHome + "/.cargo");
            env.put("RUSTUP_HOME", rustup);
            env.put("CARGO_HOME", cargo);
            grants.add("rx:" + rustup);
            grants.add("rx:" + cargo);
        }

        ProcessBuilder pb = new ProcessBuilder(Confinement.command(fixture.ws(), grants, argv))
                .directory(fixture.ws().toFile());
        List<Path> made = new ArrayList<>();
        Confinement.Output out;
        try {
            for (Map.Entry<String, String> f : s.files().entrySet()) {
                Path file = Path.of(fixture.expand(f.getKey()));
                Files.writeString(file, f.getValue());
                made.add(file);
            }
            out = Confinement.run(pb, root, env);
        } catch (IOException | RuntimeException e) {
            for (Path f : made) {
                Files.deleteIfExists(f);
            }
            throw e;
        }

        StringBuilder corpus = new StringBuilder();
        corpus.append("=== ").append(s.name()).append(" | ").append(s.op()).append(" | ").append(s.path()).append('\n');
        corpus.append("argv| ").append(String.join("\t", argv.stream().map(fixture::placeholders).toList())).append('\n');
        out.stdout().forEach(l -> corpus.append("out| ").append(fixture.placeholders(l)).append('\n'));
        out.stderr().forEach(l -> corpus.append("err| ").append(fixture.placeholders(l)).append('\n'));
        CAPTURED.put(s.name(), corpus.toString());

        PrefixConfirmer policy = new PrefixConfirmer(fixture.home());
        KernelDenials denials = new KernelDenials(policy, new KernelDenials.Child(fixture.ws(), fixture::ws, -1, new CommandLine(argv)));
        List<Diagnostic> found = new ArrayList<>();
        out.stdout().forEach(l -> found.addAll(denials.accept(RunEvent.Stream.STDOUT, l)));
        out.stderr().forEach(l -> found.addAll(denials.accept(RunEvent.Stream.STDERR, l)));
        found.addAll(denials.finish());
        // A tool that names the denial on a second line gives one more occurrence, not another
        // denial; a known companion access (bash reading the file it could not run) is counted
        // but quiet.
        found.removeIf(d -> d.details().containsKey(DetailKey.REPEAT.key()) || d.details().containsKey(DetailKey.QUIET.key()));
        // Live, magus reads the lines while the files the run had are still there.
        for (Path f : made) {
            Files.deleteIfExists(f);
        }

        assertThat(found).as("diagnostics from the output of %s:%n%s", s.name(), corpus).hasSize(1);
        Diagnostic d = found.get(0);
        assertThat(d.code()).as(corpus.toString()).isEqualTo(PrefixConfirmer.codeOf(s.op()));
        assertThat(d.operation()).isEqualTo(s.op());
        assertThat(d.subject()).isEqualTo(fixture.expand(s.path()));
        assertThat(d.layer()).isEqualTo(Layer.KERNEL);
        assertThat(d.source()).startsWith("inferred:std");
        assertThat(d.details()).containsKey("allow_yaml").containsKey(DetailKey.EVIDENCE.key());
        // The fake secret itself never travels in a diagnostic.
        assertThat(d.toString()).doesNotContain("AKIAFAKE");
    }

    /**
     * A build script {@code cd}s and then names a path relative to where it went: read live,
     * the line is resolved against the shell's working directory at that moment, not the one
     * the run started in (from which the same words lead nowhere the policy refuses).
     */
    @Test
    void a_relative_path_after_cd_is_resolved_against_the_childs_live_cwd(@TempDir Path dir) throws Exception {
        assumeLandlock();
        Fixture f = Fixture.create(dir);
        // The shell stays alive after the refusal, as a build goes on after one failed step.
        List<String> argv = List.of("sh", "-c", "cd sub/deep && cat ../../../home/.aws/credentials; sleep 60");
        Process p = new ProcessBuilder(Confinement.command(f.ws(), List.of(), argv)).directory(f.ws().toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        PrefixConfirmer policy = new PrefixConfirmer(f.home());
        KernelDenials denials = new KernelDenials(policy, KernelDenials.Child.running(p.pid(), f.ws(), CommandLine.NONE));
        KernelDenials fromStart = new KernelDenials(new PrefixConfirmer(f.home()), KernelDenials.Child.at(f.ws()));
        List<Diagnostic> found = new ArrayList<>();
        List<Diagnostic> foundFromStart = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        try (java.io.BufferedReader err = new java.io.BufferedReader(
                new java.io.InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while (found.isEmpty() && (line = err.readLine()) != null) {
                lines.add(line);
                found.addAll(denials.accept(RunEvent.Stream.STDERR, line));
                foundFromStart.addAll(fromStart.accept(RunEvent.Stream.STDERR, line));
            }
        } finally {
            p.destroyForcibly();
        }
        assertThat(lines).as("the child really was refused").anyMatch(l -> l.endsWith("Permission denied"));
        assertThat(found).as("from the live cwd, in %s", lines).hasSize(1);
        assertThat(found.get(0).operation()).isEqualTo(Operation.READ);
        assertThat(found.get(0).subject()).isEqualTo(f.home().resolve(".aws/credentials").toString());
        assertThat(foundFromStart).as("the start directory leads elsewhere: why the live cwd is needed").isEmpty();
    }

    /**
     * A file the policy allows but its mode refuses (mode 000 inside the workspace, read by a
     * non-root user): the child really prints "Permission denied", and nothing is reported,
     * because the sandbox is not what refused it.
     */
    @Test
    void a_denial_the_policy_does_not_make_yields_nothing(@TempDir Path dir) throws IOException {
        assumeLandlock();
        Optional<Path> setpriv = Confinement.which("setpriv");
        String why = "needs root and setpriv to read a mode-000 file as a non-root user";
        if (setpriv.isEmpty() || !"root".equals(System.getProperty("user.name"))) {
            System.err.println("SKIPPED: " + why);
            Assumptions.assumeTrue(false, why);
        }
        Fixture f = Fixture.create(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(f.ws(), PosixFilePermissions.fromString("rwxr-xr-x"));
        Path locked = f.ws().resolve("locked.txt");
        Files.writeString(locked, "not a secret\n");
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("---------"));

        List<String> argv = List.of(setpriv.get().toString(), "--reuid=65534", "--regid=65534", "--clear-groups",
                "cat", locked.toString());
        Confinement.Output out = Confinement.run(
                new ProcessBuilder(Confinement.command(f.ws(), List.of(), argv)).directory(f.ws().toFile()), dir,
                Map.of("HOME", f.home().toString()));

        assertThat(out.stderr()).as("the child really was refused").anyMatch(l -> l.endsWith("Permission denied"));
        PrefixConfirmer policy = new PrefixConfirmer(f.home());
        DenialParser parser = new DenialParser();
        assertThat(out.stderr().stream().flatMap(l -> parser.parse(l, RunEvent.Stream.STDERR, f::ws).stream()))
                .as("the line is recognised as a denial").isNotEmpty();
        KernelDenials denials = new KernelDenials(policy, KernelDenials.Child.at(f.ws()));
        assertThat(out.stderr().stream().flatMap(l -> denials.accept(RunEvent.Stream.STDERR, l).stream())).isEmpty();
        assertThat(policy.asked()).as("the policy was asked and allowed it").isNotEmpty();
    }

    private static Optional<Path> resolve(String name) {
        if (name.equals("python3")) {
            return Confinement.python().map(Path::of);
        }
        if (name.equals("java")) {
            return Optional.of(Path.of(System.getProperty("java.home"), "bin", "java"));
        }
        return Confinement.which(name);
    }

    /** A tool installed outside the system directories needs its installation granted. */
    private static Optional<String> installPrefix(Path tool) {
        try {
            Path real = tool.toRealPath();
            Path prefix = real.getParent().getParent();
            for (String sys : List.of("/usr", "/bin", "/sbin", "/lib", "/lib64")) {
                if (real.startsWith(sys)) {
                    return Optional.empty();
                }
            }
            return prefix == null ? Optional.empty() : Optional.of(prefix.toString());
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
