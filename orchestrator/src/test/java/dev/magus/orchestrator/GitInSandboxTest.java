package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.policy.LookPath;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * git keeps working in a confined workspace while the user's {@code ~/.gitconfig}, which holds
 * a (fake) token, stays out of the child's reach.
 */
class GitInSandboxTest {
    static final String FAKE_TOKEN = "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKE0000";

    @TempDir
    Path root;
    TestHost t;
    Path git;

    @BeforeEach
    void setUp() throws Exception {
        TestHost.assumeLandlock();
        t = new TestHost(root).mode("required");
        Optional<Path> found = LookPath.find("git", t.env.get("PATH"), root);
        String why = "git test skipped: no git on PATH";
        if (found.isEmpty()) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(found.isPresent(), why);
        git = found.get();
        Files.writeString(t.home.resolve(".gitconfig"), String.join("\n",
                "[user]",
                "\tname = Fake Person",
                "\temail = fake.person@example.invalid",
                "[credential]",
                "\thelper = store --file " + t.home.resolve(".git-credentials"),
                "[credential \"https://github.com\"]",
                "\tusername = x-access-token",
                "[url \"https://x-access-token:" + FAKE_TOKEN + "@github.com/\"]",
                "\tinsteadOf = https://github.com/",
                "[http \"https://example.invalid/\"]",
                "\textraHeader = Authorization: Bearer " + FAKE_TOKEN,
                ""));
        hostGit("init", "-q", "-b", "main", t.workspace.toString());
    }

    /** git run by the test itself, unconfined, with the fake home. */
    private String hostGit(String... args) throws IOException, InterruptedException {
        return hostGitIn(t.workspace, args);
    }

    private String hostGitIn(Path cwd, String... args) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder();
        pb.command().add(git.toString());
        pb.command().addAll(List.of(args));
        pb.environment().clear();
        pb.environment().putAll(Map.of("HOME", t.home.toString(), "PATH", t.env.get("PATH")));
        pb.directory(cwd.toFile()).redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("git %s: %s", List.of(args), out).isZero();
        return out;
    }

    @Test
    void statusAndCommitsWorkAndTheTokenStaysOutside() throws Exception {
        Orchestrator o = t.orchestrator();
        Run run = o.submit(RunRequest.builder(t.workspace, "sh", "-c", String.join(" && ",
                "git status",
                "git commit -q -m x --allow-empty",
                "echo content > file.txt",
                "git add file.txt",
                "git commit -q -m 'a real file'",
                "echo '--- global'",
                "git config --global --list")).build());
        List<RunEvent> events = TestHost.events(run);
        RunResult result = run.result().block(TestHost.DEADLINE);
        String all = TestHost.text(events);
        assertThat(result.status()).as("confined git; output:\n%s", all).isZero();
        assertThat(all).doesNotContain("fatal").doesNotContain(FAKE_TOKEN);
        String global = all.substring(all.indexOf("--- global"));
        assertThat(global).contains("user.name=Fake Person", "user.email=fake.person@example.invalid")
                .doesNotContain("credential").doesNotContain("insteadof").doesNotContain("extraheader");

        String log = hostGit("log", "--format=%an <%ae> %s", "--name-only");
        assertThat(log).contains("Fake Person <fake.person@example.invalid> a real file", "file.txt",
                "Fake Person <fake.person@example.invalid> x");
    }

    @Test
    void theChildCannotReadTheRealGlobalConfigEvenByName() {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "cat", t.home.resolve(".gitconfig").toString()).build());
        List<RunEvent> events = TestHost.events(run);
        assertThat(run.result().block(TestHost.DEADLINE).status()).isNotZero();
        assertThat(TestHost.text(events)).doesNotContain(FAKE_TOKEN);
    }

    /** A confined commit in {@code checkout}, a workspace of its own; the output of the run. */
    private String confinedCommit(Path checkout) throws IOException {
        Files.writeString(checkout.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Run run = t.orchestrator().submit(RunRequest.builder(checkout, "sh", "-c", String.join(" && ",
                "echo content > file.txt", "git add file.txt", "git commit -q -m 'confined commit'")).build());
        List<RunEvent> events = TestHost.events(run);
        String all = TestHost.text(events);
        assertThat(run.result().block(TestHost.DEADLINE).status()).as("confined git; output:\n%s", all).isZero();
        return all;
    }

    @Test
    void aLinkedWorktreeCommitsIntoItsCommonDir() throws Exception {
        Path main = Files.createDirectories(root.resolve("src/main"));
        hostGitIn(main, "init", "-q", "-b", "main");
        hostGitIn(main, "commit", "-q", "--allow-empty", "-m", "init");
        Path linked = root.resolve("src/linked").toAbsolutePath();
        hostGitIn(main, "worktree", "add", "-q", linked.toString());
        confinedCommit(linked);
        assertThat(hostGitIn(main, "log", "--all", "--format=%s")).contains("confined commit");
    }

    @Test
    void aSubmoduleCommitsIntoItsGitDir() throws Exception {
        Path lib = Files.createDirectories(root.resolve("src/lib"));
        hostGitIn(lib, "init", "-q", "-b", "main");
        hostGitIn(lib, "commit", "-q", "--allow-empty", "-m", "lib");
        Path app = Files.createDirectories(root.resolve("src/app"));
        hostGitIn(app, "init", "-q", "-b", "main");
        hostGitIn(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.toString(), "vendor/lib");
        Path sub = app.resolve("vendor/lib");
        confinedCommit(sub);
        assertThat(hostGitIn(sub, "log", "--format=%s")).contains("confined commit");
        assertThat(Files.isDirectory(app.resolve(".git/modules/vendor/lib/objects"))).isTrue();
    }
}
