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
        ProcessBuilder pb = new ProcessBuilder();
        pb.command().add(git.toString());
        pb.command().addAll(List.of(args));
        pb.environment().clear();
        pb.environment().putAll(Map.of("HOME", t.home.toString(), "PATH", t.env.get("PATH")));
        pb.directory(t.workspace.toFile()).redirectErrorStream(true);
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
}
