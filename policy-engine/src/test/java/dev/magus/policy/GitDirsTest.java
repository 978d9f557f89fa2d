package dev.magus.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.decl.MergedDecl;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.AccessMode;
import dev.magus.events.Mode;
import dev.magus.policy.path.PathResolver;
import dev.magus.policy.path.RandomTree;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
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
            repositoryByHand(main.resolve(".git"));
            FakeHost.write(wtDir.resolve("HEAD"), "ref: refs/heads/linked\n");
            FakeHost.write(wtDir.resolve("commondir"), "../..\n");
            FakeHost.write(wtDir.resolve("gitdir"), linked.resolve(".git") + "\n");
            FakeHost.write(linked.resolve(".git"), "gitdir: " + wtDir + "\n");
        }
        return new Path[] {main, linked};
    }

    /** What git's own discovery requires of a git dir: HEAD, objects and refs. */
    static Path repositoryByHand(Path gitDir) {
        FakeHost.mkdirs(gitDir.resolve("objects"));
        FakeHost.mkdirs(gitDir.resolve("refs/heads"));
        FakeHost.mkdirs(gitDir.resolve("hooks"));
        FakeHost.write(gitDir.resolve("HEAD"), "ref: refs/heads/main\n");
        return gitDir;
    }

    private static void assumeGit() {
        String why = "GitDirsTest: skipped, this test needs git on PATH to lay the repository out as git does";
        if (!gitAvailable()) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(gitAvailable(), why);
    }

    /** The one note of a refusal, whose reason must contain {@code because}. */
    private static void refused(GitDirs.Found found, String because) {
        assertThat(found.dirs()).isEmpty();
        assertThat(found.notes()).singleElement().satisfies(n -> {
            assertThat(n.kind()).isEqualTo(PolicyNote.Kind.GRANTS_NOTHING);
            assertThat(n.origin()).isEqualTo("core:git");
            assertThat(n.why()).contains(because);
        });
    }

    @Test
    void plainRepositoryHasItsDotGit() throws Exception {
        Path home = FakeHost.mkdirs(tmp.resolve("home/u"));
        Path[] repo = repoWithWorktree(home);
        assertThat(GitDirs.of(repo[0], home, new PathResolver()).dirs()).containsExactly(repo[0].resolve(".git"));
        // A workspace in a sub-directory of the checkout finds the same git dir, as git does.
        Path sub = FakeHost.mkdirs(repo[0].resolve("pkg/sub"));
        assertThat(GitDirs.of(sub, home, new PathResolver()).dirs()).containsExactly(repo[0].resolve(".git"));
    }

    @Test
    void linkedWorktreeHasItsGitDirAndTheCommonDir() throws Exception {
        Path home = FakeHost.mkdirs(tmp.resolve("home/u"));
        Path[] repo = repoWithWorktree(home);
        Path common = repo[0].resolve(".git");
        assertThat(GitDirs.of(repo[1], home, new PathResolver()).dirs()).containsExactly(common.resolve("worktrees/linked"), common);
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
        assertThat(GitDirs.of(ws, home, new PathResolver()).dirs()).isEmpty();
        FakeHost.write(ws.resolve(".git"), "not a gitdir line\n");
        assertThat(GitDirs.of(ws, home, new PathResolver()).dirs()).isEmpty();
        FakeHost.write(ws.resolve(".git"), "gitdir: ../missing\n");
        assertThat(GitDirs.of(ws, home, new PathResolver()).dirs()).isEmpty();
    }

    @Test
    void neverLooksAtHomeOrAbove() throws IOException {
        Path home = FakeHost.mkdirs(tmp.resolve("home/u"));
        FakeHost.mkdirs(home.resolve(".git/hooks"));
        Path ws = FakeHost.mkdirs(home.resolve("src/ws"));
        assertThat(GitDirs.of(ws, home, new PathResolver()).dirs()).isEmpty();
    }

    @Test
    void aSubmoduleHasItsGitDirAndItsPolicyCommitsThere() throws Exception {
        assumeGit();
        FakeHost h = new FakeHost(tmp.resolve("host"));
        Path lib = FakeHost.mkdirs(h.root.resolve("src/lib"));
        git(lib, h.home, "init", "-q");
        git(lib, h.home, "commit", "-q", "--allow-empty", "-m", "lib");
        Path app = FakeHost.mkdirs(h.root.resolve("src/app"));
        git(app, h.home, "init", "-q");
        git(app, h.home, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.toString(), "vendor/lib");
        Path sub = app.resolve("vendor/lib");
        Path subGitDir = app.resolve(".git/modules/vendor/lib");
        assertThat(Files.readString(sub.resolve(".git"))).startsWith("gitdir: ");

        GitDirs.Found found = GitDirs.of(sub, h.home, new PathResolver());
        assertThat(found.notes()).isEmpty();
        assertThat(found.dirs()).containsExactly(subGitDir);
        Policy p = new PolicyBuilder(h.facts()).policy(Mode.REQUIRED, sub, MergedDecl.EMPTY);
        assertThat(p.ruleset().granted(subGitDir.resolve("objects/ab/cdef"))).isEqualTo(AccessMode.RW);
        assertThat(p.check(Access.WRITE, subGitDir.resolve("hooks/pre-commit"), sub).allowed()).isFalse();
        // The super-project's own git dir is not this workspace's.
        assertThat(p.ruleset().granted(app.resolve(".git/objects/ab/cdef"))).isEqualTo(AccessMode.NONE);
    }

    @Test
    void aDotGitLinkOutOfTheWorkspaceGrantsNothingEvenToARealRepository() throws Exception {
        FakeHost h = new FakeHost(tmp.resolve("host"));
        // What a confined child does with `ln -s ../home .git`: here home even looks like a repository.
        repositoryByHand(h.home);
        Files.createSymbolicLink(h.ws.resolve(".git"), Path.of("../home/u"));
        refused(GitDirs.of(h.ws, h.home, new PathResolver()), "is a symbolic link to ~, out of the workspace");

        Files.delete(h.ws.resolve(".git"));
        Path other = repositoryByHand(h.root.resolve("other/.git"));
        Files.createSymbolicLink(h.ws.resolve(".git"), other);
        refused(GitDirs.of(h.ws, h.home, new PathResolver()), "out of the workspace");

        Policy p = new PolicyBuilder(h.facts()).policy(Mode.REQUIRED, h.ws, MergedDecl.EMPTY);
        assertThat(p.rules()).noneMatch(r -> r.origin().contains("core:git"));
        assertThat(p.ruleset().granted(other.resolve("HEAD"))).isEqualTo(AccessMode.NONE);
        assertThat(p.notes()).anySatisfy(n -> {
            assertThat(n.origin()).isEqualTo("core:git");
            assertThat(n.subject()).isEqualTo(h.ws.resolve(".git").toString());
            assertThat(n.describe()).startsWith("grants nothing: ").contains("a link a run could have planted");
        });
    }

    @Test
    void aDotGitLinkInsideTheWorkspaceToARealGitDirIsFollowed() throws IOException {
        Path home = FakeHost.mkdirs(tmp.resolve("home/u"));
        Path ws = FakeHost.mkdirs(tmp.toRealPath().resolve("ws"));
        Path real = repositoryByHand(ws.resolve(".git-real"));
        Files.createSymbolicLink(ws.resolve(".git"), Path.of(".git-real"));
        assertThat(GitDirs.of(ws, home, new PathResolver()).dirs()).containsExactly(real);
    }

    @Test
    void aGitdirLineNamingRootHomeOrASystemDirectoryGrantsNothing() throws Exception {
        FakeHost h = new FakeHost(tmp.resolve("host"));
        // `echo 'gitdir: /' > .git`, and its kin.
        for (String named : List.of("/", "/etc", "/usr", "/proc/self/cwd", "/var", "/tmp", h.home.toString(),
                h.root.toString(), h.ws.toString(), "..", ".")) {
            FakeHost.write(h.ws.resolve(".git"), "gitdir: " + named + "\n");
            GitDirs.Found found = GitDirs.of(h.ws, h.home, new PathResolver());
            assertThat(found.dirs()).as(named).isEmpty();
            assertThat(found.notes()).as(named).singleElement()
                    .satisfies(n -> assertThat(n.why()).containsAnyOf("never granted as a git dir", "not a git directory",
                            "does not name"));
        }
        FakeHost.write(h.ws.resolve(".git"), "gitdir: /\n");
        refused(GitDirs.of(h.ws, h.home, new PathResolver()), "/ is the home directory or an ancestor of it, which is never granted as a git dir");
        Policy p = new PolicyBuilder(h.facts()).policy(Mode.REQUIRED, h.ws, MergedDecl.EMPTY);
        assertThat(p.ruleset().granted(Path.of("/etc/passwd")).has(Access.WRITE)).isFalse();
        assertThat(p.ruleset().granted(h.home.resolve(".ssh/id_rsa"))).isEqualTo(AccessMode.NONE);
    }

    @Test
    void aGitdirLineNamingAnotherRealRepositoryGrantsNothing() throws Exception {
        assumeGit();
        FakeHost h = new FakeHost(tmp.resolve("host"));
        // Another repository of the user's, an ordinary one and one with a linked worktree.
        Path secrets = FakeHost.mkdirs(h.root.resolve("src/secrets"));
        git(secrets, h.home, "init", "-q");
        git(secrets, h.home, "commit", "-q", "--allow-empty", "-m", "init");
        git(secrets, h.home, "worktree", "add", "-q", h.root.resolve("src/secrets-wt").toString());
        Path other = secrets.resolve(".git");

        FakeHost.write(h.ws.resolve(".git"), "gitdir: " + other + "\n");
        refused(GitDirs.of(h.ws, h.home, new PathResolver()), "does not name " + h.ws + " back");
        // The other repository's linked worktree git dir names its own checkout, not this one.
        FakeHost.write(h.ws.resolve(".git"), "gitdir: " + other.resolve("worktrees/secrets-wt") + "\n");
        refused(GitDirs.of(h.ws, h.home, new PathResolver()), "names " + h.root.resolve("src/secrets-wt/.git"));

        Policy p = new PolicyBuilder(h.facts()).policy(Mode.REQUIRED, h.ws, MergedDecl.EMPTY);
        assertThat(p.ruleset().granted(other.resolve("hooks/pre-commit"))).isEqualTo(AccessMode.NONE);
        assertThat(p.ruleset().granted(other.resolve("config"))).isEqualTo(AccessMode.NONE);
    }

    @Test
    void aForgedWorktreeGitDirOrCommondirGrantsNothing() throws IOException {
        FakeHost h = new FakeHost(tmp.resolve("host"));
        // A worktree git dir that names this checkout back, made where a child could not write
        // on its own (say, by an earlier unconfined mistake), whose commondir leads to /.
        Path forged = FakeHost.mkdirs(h.root.resolve("forged/worktrees/x"));
        FakeHost.write(forged.resolve("HEAD"), "ref: refs/heads/x\n");
        FakeHost.write(forged.resolve("gitdir"), h.ws.resolve(".git") + "\n");
        FakeHost.write(forged.resolve("commondir"), "/\n");
        FakeHost.write(h.ws.resolve(".git"), "gitdir: " + forged + "\n");
        refused(GitDirs.of(h.ws, h.home, new PathResolver()), "/ is the home directory or an ancestor of it");

        // A commondir naming some real repository that does not hold this worktree git dir.
        Path elsewhere = repositoryByHand(h.root.resolve("elsewhere/.git"));
        FakeHost.write(forged.resolve("commondir"), elsewhere + "\n");
        refused(GitDirs.of(h.ws, h.home, new PathResolver()), "is not in the worktrees of the common dir");

        // And one that does hold it, but is not a repository.
        FakeHost.write(forged.resolve("commondir"), "../..\n");
        refused(GitDirs.of(h.ws, h.home, new PathResolver()), "is not a git directory");
        repositoryByHand(h.root.resolve("forged"));
        assertThat(GitDirs.of(h.ws, h.home, new PathResolver()).dirs()).containsExactly(forged, h.root.resolve("forged"));
    }

    @Test
    void aSeparateGitDirIsGrantedOnceItNamesTheCheckoutBack() throws Exception {
        assumeGit();
        FakeHost h = new FakeHost(tmp.resolve("host"));
        Path sep = FakeHost.mkdirs(h.root.resolve("store")).resolve("ws.git");
        git(h.ws, h.home, "init", "-q", "--separate-git-dir=" + sep);
        refused(GitDirs.of(h.ws, h.home, new PathResolver()), "git config core.worktree " + h.ws);
        git(h.ws, h.home, "config", "core.worktree", h.ws.toString());
        assertThat(GitDirs.of(h.ws, h.home, new PathResolver()).dirs()).containsExactly(sep);
    }

    @Test
    void aDotGitThatIsNoRepositoryOrNoFileGrantsNothing() throws Exception {
        Path home = FakeHost.mkdirs(tmp.resolve("home/u"));
        Path ws = FakeHost.mkdirs(tmp.toRealPath().resolve("ws"));
        FakeHost.mkdirs(ws.resolve(".git/hooks"));
        refused(GitDirs.of(ws, home, new PathResolver()), "not a git directory");
        RandomTree.delete(ws.resolve(".git"));
        Path fifo = ws.resolve(".git");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        Assumptions.assumeTrue(mkfifo.waitFor() == 0, "GitDirsTest: skipped the fifo case, mkfifo failed");
        refused(GitDirs.of(ws, home, new PathResolver()), "neither a directory nor a regular file");
    }
}
