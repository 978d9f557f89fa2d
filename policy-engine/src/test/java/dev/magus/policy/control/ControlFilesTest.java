package dev.magus.policy.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.policy.path.PathResolver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ControlFilesTest {

    private static final Path WS = Path.of("/home/u/src/ws");
    private final ControlFiles plain = ControlFiles.of(WS, List.of(WS.resolve(".git")));

    /** Every control name of the specification (and the lefthook spellings), as it would be written. */
    private static final Map<String, String> WRITE_TARGET_TO_ENTRY = Map.ofEntries(
            Map.entry(".git", ".git"),
            Map.entry(".git/hooks", ".git/hooks/"),
            Map.entry(".git/hooks/pre-commit", ".git/hooks/"),
            Map.entry(".git/config", ".git/config"),
            Map.entry(".git/config.worktree", ".git/config.worktree"),
            Map.entry(".git/info", ".git/info/"),
            Map.entry(".git/info/attributes", ".git/info/"),
            Map.entry("magus.yaml", "magus.yaml"),
            Map.entry("mise.toml", "mise.toml"),
            Map.entry(".mise.toml", ".mise.toml"),
            Map.entry("mise.local.toml", "mise.local.toml"),
            Map.entry(".mise.local.toml", ".mise.local.toml"),
            Map.entry(".mise", ".mise/"),
            Map.entry(".magus/spells/rbenv.yaml", ".magus/"),
            Map.entry("api/.magus", ".magus/"),
            Map.entry(".mise/config.toml", ".mise/"),
            Map.entry(".tool-versions", ".tool-versions"),
            Map.entry(".envrc", ".envrc"),
            Map.entry(".claude", ".claude/"),
            Map.entry(".claude/settings.json", ".claude/"),
            Map.entry(".cursor/rules/x.mdc", ".cursor/"),
            Map.entry(".mcp.json", ".mcp.json"),
            Map.entry(".vscode/tasks.json", ".vscode/tasks.json"),
            Map.entry(".pre-commit-config.yaml", ".pre-commit-config.yaml"),
            Map.entry(".husky", ".husky/"),
            Map.entry(".husky/pre-commit", ".husky/"),
            Map.entry("lefthook.yml", "lefthook.yml"),
            Map.entry("lefthook.yaml", "lefthook.yaml"),
            Map.entry(".lefthook.yml", ".lefthook.yml"),
            Map.entry(".lefthook.yaml", ".lefthook.yaml"),
            Map.entry("lefthook-local.yml", "lefthook-local.yml"),
            Map.entry(".lefthook-local.yaml", ".lefthook-local.yaml"),
            Map.entry("lefthook.toml", "lefthook.toml"),
            Map.entry(".lefthook.jsonc", ".lefthook.jsonc"),
            Map.entry(".config/lefthook.json", "lefthook.json"),
            Map.entry(".lefthook/pre-commit/lint.sh", ".lefthook/"));

    @Test
    void everyEntryIsAControlFileAtTopLevel() {
        WRITE_TARGET_TO_ENTRY.forEach((written, entry) ->
                assertThat(plain.match(WS.resolve(written))).as(written).contains(entry));
    }

    @Test
    void everyEntryIsAControlFileAtDepth() {
        WRITE_TARGET_TO_ENTRY.forEach((written, entry) ->
                assertThat(plain.match(WS.resolve("services/api/" + written))).as("nested " + written).contains(entry));
    }

    @Test
    void everyMatchIsOneOfTheListedEntries() {
        WRITE_TARGET_TO_ENTRY.values().forEach(entry -> assertThat(ControlFiles.entries()).contains(entry));
        assertThat(ControlFiles.entries()).doesNotHaveDuplicates();
    }

    @Test
    void theSpecificationsListIsPrintable() {
        assertThat(ControlFiles.entries()).contains(".git", ".git/hooks/", ".git/config", ".git/info/",
                "<git dir>/config.worktree", "magus.yaml", ".magus/", "mise.toml", ".mise.toml", "mise.local.toml",
                ".mise.local.toml", ".mise/", ".tool-versions", ".envrc", ".claude/", ".cursor/", ".mcp.json",
                ".vscode/tasks.json", ".pre-commit-config.yaml", ".husky/", "lefthook.yml", "lefthook.yaml",
                ".lefthook.yml", ".lefthook.yaml");
        assertThatThrownBy(() -> ControlFiles.entries().add("x")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void gitDataBeneathDotGitStaysWritableSoBuildsCanCommit() {
        assertThat(plain.match(WS.resolve(".git/objects/ab/cdef"))).isEmpty();
        assertThat(plain.match(WS.resolve(".git/refs/heads/main"))).isEmpty();
        assertThat(plain.match(WS.resolve(".git/index"))).isEmpty();
        assertThat(plain.match(WS.resolve(".git/HEAD"))).isEmpty();
        assertThat(plain.match(WS.resolve(".git/COMMIT_EDITMSG"))).isEmpty();
    }

    @Test
    void theMagusBinaryAndLookalikesAreNotControlFiles() {
        assertThat(plain.match(WS.resolve("magus"))).isEmpty();
        assertThat(plain.match(WS.resolve("bin/magus"))).isEmpty();
        assertThat(plain.match(WS.resolve("magus.yaml.bak"))).isEmpty();
        assertThat(plain.match(WS.resolve("docs/magus.yml"))).isEmpty();
        assertThat(plain.match(WS.resolve(".vscode/extensions.json"))).isEmpty();
        assertThat(plain.match(WS.resolve("hooks/pre-commit"))).isEmpty();
        assertThat(plain.match(WS.resolve("config"))).isEmpty();
        assertThat(plain.match(WS.resolve(".github/workflows/ci.yml"))).isEmpty();
        assertThat(plain.match(WS.resolve("src/Main.java"))).isEmpty();
        assertThat(plain.match(WS)).isEmpty();
    }

    @Test
    void namesOutsideTheWorkspaceAreNotItsControlFiles() {
        assertThat(plain.match(Path.of("/home/u/.envrc"))).isEmpty();
        assertThat(plain.match(Path.of("/home/u/src/wsx/magus.yaml"))).isEmpty();
    }

    @Test
    void theDotGitFileOfALinkedWorktreeIsRefused() {
        Path main = Path.of("/home/u/src/main");
        Path wt = Path.of("/home/u/src/feature");
        Path wtGitDir = main.resolve(".git/worktrees/feature");
        ControlFiles linked = ControlFiles.of(wt, List.of(wtGitDir, main.resolve(".git")));
        assertThat(linked.match(wt.resolve(".git"))).contains(".git");
        assertThat(linked.match(wt.resolve("sub/module/.git"))).contains(".git");
    }

    @Test
    void theSameEntriesInGitDirsOutsideTheCheckoutAreRefused() {
        Path main = Path.of("/home/u/src/main");
        Path wt = Path.of("/home/u/src/feature");
        Path wtGitDir = main.resolve(".git/worktrees/feature");
        Path common = main.resolve(".git");
        ControlFiles linked = ControlFiles.of(wt, List.of(wtGitDir, common));
        assertThat(linked.match(wtGitDir)).contains(ControlFiles.GIT_DIR);
        assertThat(linked.match(wtGitDir.resolve("config.worktree"))).contains(ControlFiles.GIT_DIR_CONFIG_WORKTREE);
        assertThat(linked.match(wtGitDir.resolve("commondir"))).contains(ControlFiles.GIT_DIR_COMMONDIR);
        assertThat(linked.match(common)).contains(ControlFiles.GIT_DIR);
        assertThat(linked.match(common.resolve("hooks/pre-push"))).contains(ControlFiles.GIT_DIR_HOOKS);
        assertThat(linked.match(common.resolve("hooks"))).contains(ControlFiles.GIT_DIR_HOOKS);
        assertThat(linked.match(common.resolve("config"))).contains(ControlFiles.GIT_DIR_CONFIG);
        assertThat(linked.match(common.resolve("config.worktree"))).contains(ControlFiles.GIT_DIR_CONFIG_WORKTREE);
        assertThat(linked.match(common.resolve("info/exclude"))).contains(ControlFiles.GIT_DIR_INFO);
        // git's data in those dirs stays writable: commits from a linked worktree must work.
        assertThat(linked.match(common.resolve("objects/12/3456"))).isEmpty();
        assertThat(linked.match(common.resolve("refs/heads/feature"))).isEmpty();
        assertThat(linked.match(wtGitDir.resolve("index"))).isEmpty();
        assertThat(linked.match(wtGitDir.resolve("HEAD"))).isEmpty();
        assertThat(linked.match(Path.of("/home/u/src/main/.gitx/config"))).isEmpty();
        assertThat(linked.gitDirs()).containsExactly(wtGitDir, common);
    }

    @Test
    void pathsMustBeAbsolute() {
        assertThatThrownBy(() -> plain.match(Path.of("magus.yaml"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ControlFiles.of(Path.of("ws"), List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void beneathDotGitOnlyGitsOwnEntriesCountSoOddBranchNamesStayWritable() {
        assertThat(plain.match(WS.resolve(".git/logs/refs/heads/magus.yaml"))).isEmpty();
        assertThat(plain.match(WS.resolve(".git/refs/heads/.envrc"))).isEmpty();
        assertThat(plain.match(WS.resolve(".git/objects/info/packs"))).isEmpty();
    }

    @Test
    void otherLinkedWorktreesAndSubmoduleGitDirsInsideDotGitAreCovered() {
        assertThat(plain.match(WS.resolve(".git/worktrees/feature/config.worktree"))).contains(ControlFiles.GIT_DIR_CONFIG_WORKTREE);
        assertThat(plain.match(WS.resolve(".git/worktrees/feature/index"))).isEmpty();
        assertThat(plain.match(WS.resolve(".git/modules/lib/hooks/pre-commit"))).contains(ControlFiles.GIT_DIR_HOOKS);
        assertThat(plain.match(WS.resolve(".git/modules/vendor/deep/lib/config"))).contains(ControlFiles.GIT_DIR_CONFIG);
        assertThat(plain.match(WS.resolve(".git/modules/lib/info/exclude"))).contains(ControlFiles.GIT_DIR_INFO);
        assertThat(plain.match(WS.resolve(".git/modules/lib/objects/ab/cd"))).isEmpty();
        assertThat(plain.match(WS.resolve(".git/modules/lib/refs/heads/hooks"))).isEmpty();
        assertThat(plain.match(WS.resolve(".git/modules/lib/HEAD"))).isEmpty();
    }

    @Test
    void namesMatchIgnoringCaseForCaseInsensitiveFilesystems() {
        assertThat(plain.match(WS.resolve(".GIT/Hooks/pre-commit"))).contains(".git/hooks/");
        assertThat(plain.match(WS.resolve("sub/.Envrc"))).contains(".envrc");
        assertThat(plain.match(WS.resolve(".Claude/settings.json"))).contains(".claude/");
        assertThat(plain.match(WS.resolve(".VSCode/Tasks.json"))).contains(".vscode/tasks.json");
        assertThat(plain.match(WS.resolve("MAGUS"))).isEmpty();
    }

    @Test
    void aLinkIntoTheHooksIsCaughtOnTheResolvedPath(@TempDir Path tmp) throws IOException {
        Path ws = tmp.toRealPath().resolve("ws");
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.createSymbolicLink(ws.resolve("innocent"), Path.of(".git/hooks"));
        // A linked worktree next to it: its .git is a file naming its git dir.
        Path wt = tmp.toRealPath().resolve("wt");
        Files.createDirectories(ws.resolve(".git/worktrees/wt"));
        Files.createDirectories(wt);
        Files.writeString(wt.resolve(".git"), "gitdir: " + ws.resolve(".git/worktrees/wt") + "\n");
        Files.createSymbolicLink(wt.resolve("cfg"), ws.resolve(".git/worktrees/wt/config.worktree"));

        PathResolver resolver = new PathResolver();
        ControlFiles inWs = ControlFiles.of(ws, List.of(ws.resolve(".git")));
        Path target = resolver.resolve(Path.of("innocent/pre-commit"), ws).resolvedPath().orElseThrow();
        assertThat(target).isEqualTo(ws.resolve(".git/hooks/pre-commit"));
        assertThat(inWs.match(target)).contains(".git/hooks/");

        ControlFiles inWt = ControlFiles.of(wt, List.of(ws.resolve(".git/worktrees/wt"), ws.resolve(".git")));
        assertThat(inWt.match(resolver.resolve(wt.resolve(".git")).resolvedPath().orElseThrow())).contains(".git");
        Path dangling = resolver.resolve(wt.resolve("cfg")).resolvedPath().orElseThrow();
        assertThat(inWt.match(dangling)).contains(ControlFiles.GIT_DIR_CONFIG_WORKTREE);
    }

    @Test
    void theFilesThatMakeAToolRunCodeAreControlFilesAtAnyDepth() {
        Map<String, String> more = Map.ofEntries(
                Map.entry(".npmrc", ".npmrc"),
                Map.entry("pkg/.npmrc", ".npmrc"),
                Map.entry(".yarnrc.yml", ".yarnrc.yml"),
                Map.entry(".yarnrc", ".yarnrc"),
                Map.entry(".pnpmfile.cjs", ".pnpmfile.cjs"),
                Map.entry("bunfig.toml", "bunfig.toml"),
                Map.entry(".vscode/settings.json", ".vscode/settings.json"),
                Map.entry(".vscode/launch.json", ".vscode/launch.json"),
                Map.entry(".devcontainer/devcontainer.json", ".devcontainer/"),
                Map.entry(".devcontainer.json", ".devcontainer.json"),
                Map.entry(".gemini/settings.json", ".gemini/"),
                Map.entry(".codex/config.toml", ".codex/"),
                Map.entry(".config/mise/config.toml", ".config/mise/"),
                Map.entry(".config/mise/conf.d/x.toml", ".config/mise/"),
                Map.entry(".config/mise.toml", ".config/mise.toml"),
                Map.entry("mise/config.toml", "mise/config.toml"),
                Map.entry("mise.dev.toml", ControlFiles.MISE_ENV_FILE),
                Map.entry(".mise.ci.local.toml", ControlFiles.MISE_ENV_FILE));
        more.forEach((target, entry) -> assertThat(plain.match(WS.resolve(target))).as(target).contains(entry));
        assertThat(ControlFiles.entries()).containsAll(more.values());
        assertThat(plain.match(WS.resolve(".config/other/x"))).isEmpty();
        assertThat(plain.match(WS.resolve("mise/tasks.toml"))).isEmpty();
        assertThat(plain.match(WS.resolve("mise.toml.bak"))).isEmpty();
    }

    @Test
    void whereAGitDirPointsAndWhatItsWorktreesAndSubmodulesObeyAreControlFiles() {
        Path common = Path.of("/home/u/src/main-repo/.git");
        ControlFiles linked = ControlFiles.of(WS, List.of(common.resolve("worktrees/ws"), common));
        Map<Path, String> expected = Map.ofEntries(
                Map.entry(WS.resolve(".git/commondir"), ControlFiles.GIT_COMMONDIR),
                Map.entry(WS.resolve(".git/worktrees/other/commondir"), ControlFiles.GIT_DIR_COMMONDIR),
                Map.entry(WS.resolve(".git/worktrees/other/gitdir"), ControlFiles.GIT_DIR_GITDIR),
                Map.entry(WS.resolve(".git/modules/sub/commondir"), ControlFiles.GIT_DIR_COMMONDIR),
                Map.entry(WS.resolve(".git/modules/a/b/modules/c/hooks/post-checkout"), ControlFiles.GIT_DIR_HOOKS));
        expected.forEach((p, entry) -> assertThat(plain.match(p)).as(p.toString()).contains(entry));
        Map<Path, String> outside = Map.ofEntries(
                Map.entry(common.resolve("worktrees/sibling/commondir"), ControlFiles.GIT_DIR_COMMONDIR),
                Map.entry(common.resolve("worktrees/sibling/config.worktree"), ControlFiles.GIT_DIR_CONFIG_WORKTREE),
                Map.entry(common.resolve("modules/sub/hooks/pre-commit"), ControlFiles.GIT_DIR_HOOKS),
                Map.entry(common.resolve("modules/sub/config"), ControlFiles.GIT_DIR_CONFIG),
                Map.entry(common.resolve("worktrees/ws/commondir"), ControlFiles.GIT_DIR_COMMONDIR));
        outside.forEach((p, entry) -> assertThat(linked.match(p)).as(p.toString()).contains(entry));
        assertThat(linked.match(common.resolve("worktrees/sibling/HEAD"))).isEmpty();
        assertThat(linked.match(common.resolve("modules/sub/objects/ab/cdef"))).isEmpty();
    }

    @Test
    void whatTheConfigsNameIsControlledForAsLongAsTheyNameIt() {
        ControlFiles named = plain.withNamed(java.util.Optional.of(WS), List.of(WS.resolve("team.gitconfig")));
        assertThat(named.match(WS)).contains(ControlFiles.HOOKS_PATH);
        assertThat(named.match(WS.resolve("pre-commit"))).contains(ControlFiles.HOOKS_PATH_HOOK);
        assertThat(named.match(WS.resolve("post-checkout"))).contains(ControlFiles.HOOKS_PATH_HOOK);
        assertThat(named.match(WS.resolve("src/Main.java"))).as("a hooks path of . does not freeze the checkout").isEmpty();
        assertThat(named.match(WS.resolve("team.gitconfig"))).contains(ControlFiles.INCLUDED_CONFIG);
        assertThat(named.namedNames()).contains("pre-commit", "team.gitconfig", "ws");
        assertThat(plain.withNamed(java.util.Optional.empty(), List.of(WS.getParent())).included())
                .as("an include naming the workspace or above names nothing").isEmpty();
    }

    @Test
    void beneathABareRepositoryTheProbeKnowsGitsOwnEntriesAreControlFiles() {
        Path bare = WS.resolve("remote.git");
        Path nested = WS.resolve("a/b/mirror");
        ControlFiles files = plain.withGitDirProbe(d -> d.equals(bare) || d.equals(nested));
        Map<String, String> cases = Map.ofEntries(
                Map.entry("remote.git/hooks", ControlFiles.GIT_DIR_HOOKS),
                Map.entry("remote.git/hooks/post-receive", ControlFiles.GIT_DIR_HOOKS),
                Map.entry("remote.git/HOOKS/pre-receive", ControlFiles.GIT_DIR_HOOKS),
                Map.entry("remote.git/config", ControlFiles.GIT_DIR_CONFIG),
                Map.entry("remote.git/config.worktree", ControlFiles.GIT_DIR_CONFIG_WORKTREE),
                Map.entry("remote.git/info/attributes", ControlFiles.GIT_DIR_INFO),
                Map.entry("remote.git/commondir", ControlFiles.GIT_DIR_COMMONDIR),
                Map.entry("remote.git/worktrees/w/config.worktree", ControlFiles.GIT_DIR_CONFIG_WORKTREE),
                Map.entry("remote.git/worktrees/w/gitdir", ControlFiles.GIT_DIR_GITDIR),
                Map.entry("remote.git/modules/lib/hooks/update", ControlFiles.GIT_DIR_HOOKS),
                Map.entry("remote.git/modules/a/b/config", ControlFiles.GIT_DIR_CONFIG),
                Map.entry("a/b/mirror/hooks/push-to-checkout", ControlFiles.GIT_DIR_HOOKS),
                // The names matched at any depth still are, inside its data too.
                Map.entry("remote.git/objects/.envrc", ".envrc"));
        cases.forEach((rel, entry) -> assertThat(files.match(WS.resolve(rel))).as(rel).contains(entry));
        for (String rel : List.of("remote.git", "remote.git/HEAD", "remote.git/objects/ab/cdef", "remote.git/refs/heads/main",
                "remote.git/packed-refs", "remote.git/objects/hooks/x", "remote.git/modules/lib/objects/config",
                "remote.git/worktrees/w/HEAD", "other.git/hooks/post-receive", "a/b/hooks/x")) {
            assertThat(files.match(WS.resolve(rel))).as(rel).isEmpty();
        }
        // Without a probe nothing is known of them.
        assertThat(plain.match(bare.resolve("hooks/post-receive"))).isEmpty();
        assertThat(plain.withGitDirProbe(ControlFiles.GitDirProbe.NONE).match(bare.resolve("config"))).isEmpty();
    }

    @Test
    void theProbeIsAskedOnlyAboutADirectoryOfTheWorkspaceFollowedByANameGitObeys() {
        java.util.List<Path> asked = new java.util.ArrayList<>();
        ControlFiles files = plain.withGitDirProbe(d -> {
            asked.add(d);
            return false;
        });
        files.match(WS.resolve("src/main/java/App.java"));
        files.match(WS.resolve("build/objects/x.o"));
        files.match(Path.of("/elsewhere/hooks/x"));
        assertThat(asked).isEmpty();
        files.match(WS.resolve("x/config"));
        files.match(WS.resolve("hooks"));
        assertThat(asked).containsExactly(WS.resolve("x"), WS);
        asked.clear();
        files.withNamed(java.util.Optional.empty(), List.of()).match(WS.resolve("x/config"));
        assertThat(asked).containsExactly(WS.resolve("x"));
    }

    @Test
    void aGitDirIsMarkedByHeadObjectsAndRefsAllThere() {
        assertThat(ControlFiles.marksGitDir(List.of("HEAD", "objects", "refs", "hooks"))).isTrue();
        assertThat(ControlFiles.marksGitDir(List.of("HEAD", "objects"))).isFalse();
        assertThat(ControlFiles.marksGitDir(List.of("head", "objects", "refs"))).isFalse();
    }

    @Test
    void aBareRepositoryInsideTheCommonDirOutsideTheWorkspaceIsProbedToo() {
        Path common = Path.of("/home/u/src/main/.git");
        Path bare = common.resolve("stash.git");
        ControlFiles files = ControlFiles.of(WS, List.of(common.resolve("worktrees/ws"), common))
                .withGitDirProbe(d -> d.equals(bare) || d.equals(common));
        assertThat(files.match(bare.resolve("hooks/post-receive"))).contains(ControlFiles.GIT_DIR_HOOKS);
        assertThat(files.match(bare.resolve("config"))).contains(ControlFiles.GIT_DIR_CONFIG);
        assertThat(files.match(bare.resolve("objects/ab/cd"))).isEmpty();
        assertThat(files.match(common.resolve("hooks/pre-commit"))).contains(ControlFiles.GIT_DIR_HOOKS);
        assertThat(files.match(Path.of("/home/u/src/other.git/hooks/x"))).isEmpty();
    }
}
