package dev.magus.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.decl.MergedDecl;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.mode.Mode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GitDirsTest {
    @TempDir
    Path tmp;

    private static boolean gitAvailable() {
        try {
            return new ProcessBuilder("git", "--version").redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Runs git with a fake HOME and no global or system config, so the real ~/.gitconfig is never read. */
    private void git(Path cwd, Path home, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("git", "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                "-c", "init.defaultBranch=main"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().put("HOME", home.toString());
        pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
        pb.environment().put("GIT_CONFIG_GLOBAL", "/dev/null");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("git %s: %s", cmd, out).isZero();
    }

    /** A main checkout and a linked worktree, made by real git when it exists, else by hand exactly as git lays them out. */
    private Path[] repoWithWorktree(Path home) throws Exception {
        Path main = FakeHost.mkdirs(tmp.toRealPath().resolve("src/main"));
        Path linked = tmp.toRealPath().resolve("src/linked");
        if (gitAvailable()) {
            git(main, home, "init", "-q");
            git(main, home, "commit", "-q", "--allow-empty", "-m", "init");
            git(main, home, "worktree", "add", "-q", linked.toString());
        } else {
            System.err.println("GitDirsTest: git not found; building the .git layout by hand");
            Path wtDir = FakeHost.mkdirs(main.resolve(".git/worktrees/linked"));
            FakeHost.mkdirs(main.resolve(".git/hooks"));
            FakeHost.write(wtDir.resolve("commondir"), "../..\n");
            FakeHost.write(linked.resolve(".git"), "gitdir: " + wtDir + "\n");
        }
        return new Path[] {main, linked};
    }

    @Test
    void plainRepositoryHasItsDotGit() throws Exception {
        Path home = FakeHost.mkdirs(tmp.resolve("home/u"));
        Path[] repo = repoWithWorktree(home);
        assertThat(GitDirs.of(repo[0], home)).containsExactly(repo[0].resolve(".git"));
        // A workspace in a sub-directory of the checkout finds the same git dir, as git does.
        Path sub = FakeHost.mkdirs(repo[0].resolve("pkg/sub"));
        assertThat(GitDirs.of(sub, home)).containsExactly(repo[0].resolve(".git"));
    }

    @Test
    void linkedWorktreeHasItsGitDirAndTheCommonDir() throws Exception {
        Path home = FakeHost.mkdirs(tmp.resolve("home/u"));
        Path[] repo = repoWithWorktree(home);
        Path common = repo[0].resolve(".git");
        assertThat(GitDirs.of(repo[1], home)).containsExactly(common.resolve("worktrees/linked"), common);
    }

    @Test
    void policyOfALinkedWorktreeGrantsAndProtectsItsGitDirs() throws Exception {
        FakeHost h = new FakeHost(tmp.resolve("host"));
        Path[] repo = repoWithWorktree(h.home);
        Path common = repo[0].resolve(".git");
        Policy p = new PolicyBuilder(h.facts()).policy(Mode.REQUIRED, repo[1], MergedDecl.EMPTY);
        assertThat(p.ruleset().granted(common.resolve("objects/ab/cdef"))).isEqualTo(AccessMode.RW);
        assertThat(p.ruleset().granted(common.resolve("worktrees/linked/HEAD"))).isEqualTo(AccessMode.RW);
        assertThat(p.rules()).filteredOn(r -> r.origin().equals("core:git")).hasSize(2);
        assertThat(p.check(Access.WRITE, common.resolve("objects/ab/cdef"), repo[1]).allowed()).isTrue();
        assertThat(p.check(Access.WRITE, common.resolve("hooks/pre-commit"), repo[1]).allowed()).isFalse();
        assertThat(p.check(Access.WRITE, repo[1].resolve(".git"), repo[1]).allowed()).isFalse();
        assertThat(p.check(Access.READ, common.resolve("config"), repo[1]).allowed()).isTrue();
        // The main checkout beside it is not part of this workspace.
        assertThat(p.check(Access.READ, repo[0].resolve("README"), repo[1]).allowed()).isFalse();
    }

    @Test
    void aDotGitFileWithoutGitdirOrOutsideGitGrantsNothing() throws IOException {
        Path home = FakeHost.mkdirs(tmp.resolve("home/u"));
        Path ws = FakeHost.mkdirs(tmp.resolve("ws"));
        assertThat(GitDirs.of(ws, home)).isEmpty();
        FakeHost.write(ws.resolve(".git"), "not a gitdir line\n");
        assertThat(GitDirs.of(ws, home)).isEmpty();
        FakeHost.write(ws.resolve(".git"), "gitdir: ../missing\n");
        assertThat(GitDirs.of(ws, home)).isEmpty();
    }

    @Test
    void neverLooksAtHomeOrAbove() throws IOException {
        Path home = FakeHost.mkdirs(tmp.resolve("home/u"));
        FakeHost.mkdirs(home.resolve(".git/hooks"));
        Path ws = FakeHost.mkdirs(home.resolve("src/ws"));
        assertThat(GitDirs.of(ws, home)).isEmpty();
    }
}
