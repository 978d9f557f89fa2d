package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A confined child plants what git will follow at the user's next command: a
 * {@code commondir} in another worktree's or a submodule's git dir pointing at a git dir the
 * run wrote, a hook in the directory {@code core.hooksPath} names, a key in a config an
 * include pulls in. Each is found by the after-run audit (MGS2002, layer audit), put back, and
 * the user's next git command, unconfined, runs nothing the run planted. Both layouts: the
 * workspace as the main checkout, and as a linked worktree of a repository outside it.
 */
class GitIndirectionsInRunsTest {
    static final String YAML = "sandbox:\n  mode: required\n";
    /** What a planted hook leaves behind when git runs it. */
    static final String PWNED = "PWNED";

    @TempDir
    Path root;
    TestHost t;
    Path git;

    @BeforeEach
    void setUp() throws Exception {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml(YAML);
        git = t.gitInit("git indirection test skipped: no git on PATH");
        hostGit(t.workspace, "commit", "-q", "--allow-empty", "-m", "first");
    }

    /** git as the user runs it after the run: unconfined, in the fake home. */
    private String hostGit(Path in, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(git.toString(), "-c", "user.name=u", "-c", "user.email=u@example.invalid",
                "-c", "protocol.file.allow=always"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(in.toFile()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(Map.of("HOME", t.home.toString(), "PATH", t.env.get("PATH"), "GIT_CONFIG_NOSYSTEM", "1"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    private record Outcome(RunResult result, List<RunEvent> events, List<Diagnostic> audit) {
        String text() {
            return TestHost.text(events);
        }
    }

    private Outcome run(Path cwd, String script) {
        Run run = t.orchestrator().submit(RunRequest.builder(cwd, "sh", "-c", script).build());
        List<RunEvent> events = TestHost.events(run);
        RunResult result = run.result().block(TestHost.DEADLINE);
        List<Diagnostic> audit = events.stream().filter(e -> e instanceof RunEvent.Diag)
                .map(e -> ((RunEvent.Diag) e).diagnostic()).filter(d -> d.layer() == Layer.AUDIT).toList();
        return new Outcome(result, events, audit);
    }

    /** A git dir {@code evil/} inside the workspace whose pre-commit and post-checkout hooks leave {@link #PWNED}. */
    private static String evilGitDir(String gitDir, String evil) {
        return "cp -r " + gitDir + " " + evil + " && mkdir -p " + evil + "/hooks"
                + " && printf '#!/bin/sh\\necho " + PWNED + " > /tmp/never\\necho " + PWNED + "\\n' > " + evil + "/hooks/pre-commit"
                + " && cp " + evil + "/hooks/pre-commit " + evil + "/hooks/post-checkout"
                + " && chmod +x " + evil + "/hooks/pre-commit " + evil + "/hooks/post-checkout";
    }

    private static void assertCaught(Outcome o, Path subject) {
        assertThat(o.audit()).as(o.text()).anySatisfy(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(d.subject()).isEqualTo(subject.toString());
        });
        assertThat(o.result().status()).as("the audit fails the run").isNotZero();
    }

    @Test
    void aCommondirPlantedInAnotherWorktreesGitDirIsPutBack() throws Exception {
        Path other = root.resolve("other-wt");
        hostGit(t.workspace, "worktree", "add", "-q", other.toString());
        Path commondir = t.workspace.resolve(".git/worktrees/other-wt/commondir");
        String before = Files.readString(commondir);

        Outcome o = run(t.workspace, evilGitDir(".git", "evil") + " && echo ../../../evil > .git/worktrees/other-wt/commondir");

        assertCaught(o, commondir);
        assertThat(Files.readString(commondir)).isEqualTo(before);
        assertThat(hostGit(other, "commit", "--allow-empty", "-m", "next")).doesNotContain(PWNED);
    }

    @Test
    void aCommondirPlantedInASubmodulesGitDirIsPutBack() throws Exception {
        Path lib = Files.createDirectories(root.resolve("lib"));
        hostGit(lib, "init", "-q");
        hostGit(lib, "commit", "-q", "--allow-empty", "-m", "lib");
        hostGit(t.workspace, "submodule", "add", "-q", lib.toString(), "lib");
        Path commondir = t.workspace.resolve(".git/modules/lib/commondir");
        assertThat(commondir).doesNotExist();

        Outcome o = run(t.workspace, evilGitDir(".git/modules/lib", "evil") + " && echo ../../../evil > " + commondir);

        assertCaught(o, commondir);
        assertThat(commondir).doesNotExist();
        assertThat(hostGit(t.workspace.resolve("lib"), "commit", "--allow-empty", "-m", "next")).doesNotContain(PWNED);
    }

    @Test
    void aHookInTheDirectoryCoreHooksPathNamesIsRemovedAndTheRestOfTheDirectoryIsWork() throws Exception {
        hostGit(t.workspace, "config", "core.hooksPath", ".githooks");
        Files.createDirectories(t.workspace.resolve(".githooks"));
        Path hook = t.workspace.resolve(".githooks/pre-commit");

        Outcome o = run(t.workspace, "printf '#!/bin/sh\\necho " + PWNED + "\\n' > .githooks/pre-commit && chmod +x "
                + ".githooks/pre-commit && echo notes > .githooks/README");

        assertCaught(o, hook);
        assertThat(o.audit()).as("a file git never runs as a hook is the run's work").hasSize(1);
        assertThat(hook).doesNotExist();
        assertThat(t.workspace.resolve(".githooks/README")).hasContent("notes");
        assertThat(hostGit(t.workspace, "commit", "--allow-empty", "-m", "next")).doesNotContain(PWNED);
    }

    @Test
    void aConfigAnIncludeNamesIsAControlFile() throws Exception {
        Path team = Files.writeString(t.workspace.resolve("team.gitconfig"), "[pull]\n\trebase = true\n");
        hostGit(t.workspace, "config", "include.path", "../team.gitconfig");

        Outcome o = run(t.workspace, "printf '[core]\\n\\thooksPath = evil\\n' >> team.gitconfig && mkdir evil"
                + " && printf '#!/bin/sh\\necho " + PWNED + "\\n' > evil/pre-commit && chmod +x evil/pre-commit");

        assertCaught(o, team);
        assertThat(team).hasContent("[pull]\n\trebase = true");
        assertThat(hostGit(t.workspace, "commit", "--allow-empty", "-m", "next")).doesNotContain(PWNED);
    }

    /** The workspace is a linked worktree of a repository outside it, whose common dir the run may write. */
    private Path linkedWorkspace() throws Exception {
        Path main = Files.createDirectories(root.resolve("main"));
        hostGit(main, "init", "-q");
        hostGit(main, "commit", "-q", "--allow-empty", "-m", "main");
        Path ws = root.resolve("linked");
        hostGit(main, "worktree", "add", "-q", ws.toString());
        Files.writeString(ws.resolve("magus.yaml"), YAML);
        return ws.toRealPath();
    }

    @Test
    void inALinkedWorktreeASiblingsCommondirInTheCommonDirIsPutBack() throws Exception {
        Path ws = linkedWorkspace();
        Path main = root.resolve("main").toRealPath();
        Path sibling = root.resolve("sibling");
        hostGit(main, "worktree", "add", "-q", sibling.toString());
        Path commondir = main.resolve(".git/worktrees/sibling/commondir");
        String before = Files.readString(commondir);

        Outcome o = run(ws, evilGitDir(main.resolve(".git").toString(), "evil") + " && echo " + ws.resolve("evil")
                + " > " + commondir);

        assertCaught(o, commondir);
        assertThat(Files.readString(commondir)).isEqualTo(before);
        assertThat(hostGit(sibling, "commit", "--allow-empty", "-m", "next")).doesNotContain(PWNED);
    }

    @Test
    void inALinkedWorktreeASiblingsConfigWorktreeIsAControlFile() throws Exception {
        Path ws = linkedWorkspace();
        Path main = root.resolve("main").toRealPath();
        Path sibling = root.resolve("sibling");
        hostGit(main, "worktree", "add", "-q", sibling.toString());
        hostGit(main, "config", "extensions.worktreeConfig", "true");
        Path config = main.resolve(".git/worktrees/sibling/config.worktree");

        Outcome o = run(ws, "mkdir evil && printf '#!/bin/sh\\necho " + PWNED + "\\n' > evil/pre-commit"
                + " && chmod +x evil/pre-commit && printf '[core]\\n\\thooksPath = " + ws.resolve("evil") + "\\n' > " + config);

        assertCaught(o, config);
        // A config is judged key by key: the hooks path is taken out, whatever else stays.
        assertThat(!Files.exists(config) || !Files.readString(config).contains("hooksPath")).as("hooksPath left in " + config)
                .isTrue();
        assertThat(hostGit(sibling, "commit", "--allow-empty", "-m", "next")).doesNotContain(PWNED);
    }

    @Test
    void inALinkedWorktreeASubmodulesHookUnderTheMainGitDirIsRemoved() throws Exception {
        Path lib = Files.createDirectories(root.resolve("lib"));
        hostGit(lib, "init", "-q");
        hostGit(lib, "commit", "-q", "--allow-empty", "-m", "lib");
        Path ws = linkedWorkspace();
        Path main = root.resolve("main").toRealPath();
        hostGit(main, "submodule", "add", "-q", lib.toString(), "lib");
        Path hook = main.resolve(".git/modules/lib/hooks/pre-commit");

        Outcome o = run(ws, "printf '#!/bin/sh\\necho " + PWNED + "\\n' > " + hook + " && chmod +x " + hook);

        assertCaught(o, hook);
        assertThat(hook).doesNotExist();
        assertThat(hostGit(main.resolve("lib"), "commit", "--allow-empty", "-m", "next")).doesNotContain(PWNED);
    }

    @ParameterizedTest
    @ValueSource(strings = {".npmrc", "pkg/.npmrc", ".yarnrc.yml", ".yarnrc", ".pnpmfile.cjs", "bunfig.toml",
            ".vscode/settings.json", ".vscode/launch.json", ".devcontainer/devcontainer.json", ".devcontainer.json",
            ".gemini/settings.json", ".config/mise/config.toml", ".config/mise/conf.d/x.toml", "mise/config.toml",
            "mise.dev.toml"})
    void aFileThatMakesAToolRunCodeIsRemovedWhenTheRunPlantsIt(String name) {
        Path planted = t.workspace.resolve(name);
        Outcome o = run(t.workspace, "mkdir -p \"$(dirname " + name + ")\" && echo 'script-shell=/tmp/evil' > " + name);
        assertThat(o.audit()).as(o.text()).anySatisfy(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(planted.startsWith(Path.of(d.subject()))).as(d.subject()).isTrue();
        });
        assertThat(o.result().status()).isNotZero();
        assertThat(planted).doesNotExist();
    }
}
