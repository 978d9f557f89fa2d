package dev.magus.policy;

import static dev.magus.policy.FakeHost.allow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.env.Allowlist;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.MergedDecl;
import dev.magus.policy.fs.Access;
import dev.magus.events.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.magus.policy.control.ControlFiles;

/**
 * The control-file check of a write looks at every name the walk went through: the file it
 * reaches, each symbolic link on the way, and the path as written. Each
 * case is asked of {@link Policy#check} and of a {@link PolicyChecker}, which must agree.
 */
class ControlFileLinksTest {
    @TempDir
    Path tmp;
    FakeHost h;
    Path scratch;
    Policy policy;

    @BeforeEach
    void build() throws IOException {
        h = new FakeHost(tmp);
        FakeHost.mkdirs(h.ws.resolve(".git/hooks"));
        scratch = FakeHost.mkdirs(h.root.resolve("scratch"));
        policy = new PolicyBuilder(h.facts()).policy(Mode.REQUIRED, h.ws, new MergedDecl(List.of(
                allow(DeclLayer.spell("s"), scratch.toString(), "rw")), Allowlist.EMPTY));
    }

    /** The control-file refusal of writing {@code path} from the workspace root, the same from both checks. */
    private Diagnostic refused(String path, String entry) {
        Verdict v = policy.check(Access.WRITE, Path.of(path), h.ws);
        assertThat(PolicyChecker.of(policy).check(Access.WRITE, Path.of(path), h.ws)).isEqualTo(v);
        assertThat(v).as("write %s", path).isInstanceOf(Verdict.Denied.class);
        Diagnostic d = ((Verdict.Denied) v).diagnostic();
        assertThat(d.code()).isEqualTo(Code.MGS2002);
        assertThat(d.details()).containsEntry("control_file", entry);
        assertThat(d.message()).contains("is a control file (" + entry + ")");
        return d;
    }

    private void allowed(String path) {
        Verdict v = policy.check(Access.WRITE, Path.of(path), h.ws);
        assertThat(PolicyChecker.of(policy).check(Access.WRITE, Path.of(path), h.ws)).isEqualTo(v);
        assertThat(v.allowed()).as("write %s: %s", path, v).isTrue();
    }

    @Test
    void aControlFileThatIsALinkIsRefusedThoughItsTargetIsNot() throws IOException {
        FakeHost.write(h.ws.resolve("envrc.real"), "export A=1\n");
        Files.createSymbolicLink(h.ws.resolve(".envrc"), Path.of("envrc.real"));
        Diagnostic d = refused(".envrc", ".envrc");
        assertThat(d.subject()).isEqualTo(h.ws.resolve(".envrc").toString());
        assertThat(d.message()).contains(".envrc, a symbolic link to " + h.ws.resolve("envrc.real"));
        assertThat(d.details()).containsEntry("resolved", h.ws.resolve("envrc.real").toString());
        // The target written by its own name is an ordinary file.
        allowed("envrc.real");
        // A link to the link, and a dangling control link.
        Files.createSymbolicLink(h.ws.resolve("innocent"), Path.of(".envrc"));
        refused("innocent", ".envrc");
        Files.createSymbolicLink(h.ws.resolve("mise.toml"), Path.of("not-yet"));
        refused("mise.toml", "mise.toml");
    }

    @Test
    void aLinkIntoTheHooksIsRefused() throws IOException {
        Files.createSymbolicLink(h.ws.resolve("x"), Path.of(".git/hooks"));
        refused("x/pre-commit", ".git/hooks/");
        refused(h.ws.resolve("x/pre-commit").toString(), ".git/hooks/");
    }

    @Test
    void aControlDirectoryThatIsALinkIsRefusedBeneathIt() throws IOException {
        Path elsewhere = FakeHost.mkdirs(h.ws.resolve("agent-settings"));
        Files.createSymbolicLink(h.ws.resolve(".claude"), elsewhere);
        refused(".claude/settings.json", ".claude/");
        Files.createDirectories(h.ws.resolve("sub"));
        Files.createSymbolicLink(h.ws.resolve("sub/.husky"), Path.of("../agent-settings"));
        refused("sub/.husky/pre-commit", ".husky/");
        allowed("agent-settings/settings.json");
    }

    @Test
    void aControlNameWrittenBeneathALinkOutOfTheWorkspaceIsRefusedAsWritten() throws IOException {
        // direnv in a shell whose directory is ws/out reads ws/out/.envrc, which lands in scratch.
        Files.createSymbolicLink(h.ws.resolve("out"), scratch);
        Diagnostic d = refused("out/.envrc", ".envrc");
        assertThat(d.message()).contains("as written; it resolves to " + scratch.resolve(".envrc"));
        allowed("out/artifact.bin");
        allowed(scratch.resolve(".envrc").toString());
    }

    @Test
    void aWriteThroughALinkToTheGitDirIsJudgedWhereItLands() throws IOException {
        Files.createSymbolicLink(h.ws.resolve("g"), Path.of(".git"));
        allowed("g/objects/ab/cdef");
        allowed("g/index");
        refused("g/hooks/pre-push", ".git/hooks/");
        refused("g/config", ".git/config");
    }

    @Test
    void aWorkingDirectoryReachedThroughAControlLinkCounts() throws IOException {
        Path real = FakeHost.mkdirs(h.ws.resolve("mise-real"));
        Files.createSymbolicLink(h.ws.resolve(".mise"), real);
        Verdict v = policy.check(Access.WRITE, Path.of("tasks/build"), h.ws.resolve(".mise"));
        assertThat(v.allowed()).isFalse();
        assertThat(((Verdict.Denied) v).diagnostic().details()).containsEntry("control_file", ".mise/");
        assertThat(policy.check(Access.WRITE, Path.of("tasks/build"), real).allowed()).isTrue();
    }

    @Test
    void aBareRepositoryOfAnyNameIsCheckedLikeDotGit() throws IOException {
        Path bare = FakeHost.mkdirs(h.ws.resolve("remote.git"));
        allowed("remote.git/hooks/post-receive");
        FakeHost.write(bare.resolve("HEAD"), "ref: refs/heads/main\n");
        FakeHost.mkdirs(bare.resolve("objects/ab"));
        FakeHost.mkdirs(bare.resolve("refs/heads"));
        FakeHost.mkdirs(bare.resolve("hooks"));
        refused("remote.git/hooks/post-receive", ControlFiles.GIT_DIR_HOOKS);
        refused("remote.git/config", ControlFiles.GIT_DIR_CONFIG);
        refused("remote.git/worktrees/w/config.worktree", ControlFiles.GIT_DIR_CONFIG_WORKTREE);
        allowed("remote.git/objects/ab/cdef");
        allowed("remote.git/refs/heads/main");
        allowed("remote.git/HEAD");
    }
}
