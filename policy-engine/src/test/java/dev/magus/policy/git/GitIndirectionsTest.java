package dev.magus.policy.git;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.path.Filesystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the configs name, checked against the git on this machine: {@code git rev-parse
 * --git-path hooks} is where git looks for hooks, and {@code git config --show-origin} names
 * every file an include pulled in.
 */
class GitIndirectionsTest {
    @TempDir
    Path tmp;
    Path home;
    Path repo;

    @BeforeEach
    void setUp() throws Exception {
        Assumptions.assumeTrue(GitConfigAgainstGitTest.hasGit(), "git is not installed here: the reference is missing");
        home = Files.createDirectories(tmp.resolve("home")).toRealPath();
        repo = Files.createDirectories(tmp.resolve("repo")).toRealPath();
        git(repo, "init", "-q");
    }

    private String git(Path in, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("git"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(in.toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("HOME", home.toString());
        env.remove("XDG_CONFIG_HOME");
        env.remove("GIT_DIR");
        env.remove("GIT_CONFIG_GLOBAL");
        env.put("GIT_CONFIG_NOSYSTEM", "1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }

    private GitIndirections.Found found(List<Path> gitDirs, Path checkout) {
        return GitIndirections.of(gitDirs, checkout, home, Optional.empty(), Filesystem.real());
    }

    private Path gitHooks(Path in) throws Exception {
        Path p = Path.of(git(in, "rev-parse", "--git-path", "hooks"));
        return (p.isAbsolute() ? p : in.resolve(p)).normalize();
    }

    @Test
    void withoutAHooksPathNothingIsNamed() throws Exception {
        assertThat(found(List.of(repo.resolve(".git")), repo)).isEqualTo(GitIndirections.Found.NONE);
        assertThat(gitHooks(repo)).isEqualTo(repo.resolve(".git/hooks"));
    }

    @Test
    void aRelativeHooksPathIsTakenFromTheTopOfTheWorkingTreeAsGitTakesIt() throws Exception {
        git(repo, "config", "core.hooksPath", ".githooks");
        Path sub = Files.createDirectories(repo.resolve("a/b"));
        GitIndirections.Found f = found(List.of(repo.resolve(".git")), repo);
        assertThat(f.hooksDir()).contains(repo.resolve(".githooks"));
        assertThat(f.hooksDir()).contains(gitHooks(repo));
        assertThat(f.hooksDir()).contains(gitHooks(sub));
    }

    @Test
    void theHooksPathOfTheGlobalConfigAndOfAnIncludedFileCount() throws Exception {
        Files.writeString(home.resolve(".gitconfig"), "[core]\n\thooksPath = ~/global-hooks\n");
        assertThat(found(List.of(repo.resolve(".git")), repo).hooksDir()).contains(home.resolve("global-hooks"))
                .contains(gitHooks(repo));

        Files.writeString(repo.resolve(".gitconfig"), "[core]\n\thooksPath = included-hooks\n");
        Files.writeString(repo.resolve("more.inc"), "[x]\n\ty = 1\n");
        Files.writeString(repo.resolve(".gitconfig"), "[include]\n\tpath = more.inc\n", java.nio.file.StandardOpenOption.APPEND);
        git(repo, "config", "include.path", "../.gitconfig");
        GitIndirections.Found f = found(List.of(repo.resolve(".git")), repo);
        assertThat(f.hooksDir()).contains(repo.resolve("included-hooks")).contains(gitHooks(repo));
        assertThat(f.included()).containsExactly(repo.resolve(".gitconfig"), repo.resolve("more.inc"));
        List<Path> origins = new ArrayList<>();
        for (String line : git(repo, "config", "--show-origin", "--list").split("\n")) {
            String file = line.substring("file:".length(), line.indexOf('\t'));
            origins.add(repo.resolve(file).normalize());
        }
        assertThat(origins).containsAll(f.included());
    }

    @Test
    void anIncludeIfIsFollowedWhateverItsCondition() throws Exception {
        git(repo, "config", "includeIf.onbranch:nope.path", "../branch.inc");
        GitIndirections.Found f = found(List.of(repo.resolve(".git")), repo);
        assertThat(f.included()).containsExactly(repo.resolve("branch.inc"));
    }

    @Test
    void includesThatIncludeThemselvesStop() throws Exception {
        Files.writeString(repo.resolve("loop.inc"), "[include]\n\tpath = loop.inc\n");
        git(repo, "config", "include.path", "../loop.inc");
        assertThat(found(List.of(repo.resolve(".git")), repo).included()).containsExactly(repo.resolve("loop.inc"));
    }

    @Test
    void aLinkedWorktreeTakesTheCommonConfigsHooksPathFromItsOwnTop() throws Exception {
        git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", "x");
        git(repo, "config", "core.hooksPath", "hooks-here");
        Path wt = tmp.resolve("wt");
        git(repo, "worktree", "add", "-q", wt.toString());
        wt = wt.toRealPath();
        Path own = Path.of(git(wt, "rev-parse", "--absolute-git-dir"));
        Path common = Path.of(git(wt, "rev-parse", "--path-format=absolute", "--git-common-dir"));
        GitIndirections.Found f = found(List.of(own, common), wt);
        assertThat(f.hooksDir()).contains(wt.resolve("hooks-here")).contains(gitHooks(wt));
    }
}
