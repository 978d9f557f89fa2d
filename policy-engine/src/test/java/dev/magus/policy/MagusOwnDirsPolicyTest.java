package dev.magus.policy;

import static dev.magus.policy.InMemoryHostPolicyTest.HOME;
import static dev.magus.policy.InMemoryHostPolicyTest.WS;
import static dev.magus.policy.InMemoryHostPolicyTest.build;
import static dev.magus.policy.InMemoryHostPolicyTest.declare;
import static dev.magus.policy.InMemoryHostPolicyTest.linux;
import static dev.magus.policy.InMemoryHostPolicyTest.linuxHost;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.fs.Access;
import dev.magus.policy.path.MemoryFilesystem;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A declared grant never reaches what magus keeps from every run: its state dir (the cached git
 * config, lease markers, the job store), the server's socket dir (the token), or, for a write,
 * its own installation. Landlock cannot cut a hole in a grant, so such a location grants
 * nothing at all, in either direction ({@code ~/.local rw} holds the state dir), and says why.
 */
class MagusOwnDirsPolicyTest {
    static final MemoryFilesystem FS = linux()
            .dir(HOME.resolve(".local/state/magus"), HOME.resolve(".local/share/tool"), HOME.resolve(".cache/magus-run"))
            .dir("/run/user/1000/magus", "/srv/state/magus")
            .build();

    private static boolean granted(Policy p, String path, Access access) {
        return p.check(access, Path.of(path), WS).allowed();
    }

    private static boolean refusedWithNote(Policy p, String subject) {
        return p.notes().stream().anyMatch(n -> n.kind() == PolicyNote.Kind.GRANTS_NOTHING && n.subject().equals(subject)
                && n.why().contains("grants nothing"));
    }

    @Test
    void anAncestorOfTheStateDirGrantsNothingAndADirBesideItStillDoes() {
        Policy p = build(FS, linuxHost(Map.of()), WS,
                declare(DeclLayer.workspace(), null, null, null, "/home/u/.local", "rw", 0),
                declare(DeclLayer.workspace(), null, null, null, "/home/u/.local/share/tool", "rw", 1));
        assertThat(refusedWithNote(p, "/home/u/.local")).as(p.notes().toString()).isTrue();
        assertThat(granted(p, "/home/u/.local/state/magus/gitconfig.cache", Access.WRITE)).isFalse();
        assertThat(granted(p, "/home/u/.local/state/magus/jobs.db", Access.READ)).isFalse();
        assertThat(granted(p, "/home/u/.local/share/tool/x", Access.WRITE)).isTrue();
    }

    @Test
    void theSocketDirIsNeverGrantedEvenForReading() {
        Policy p = build(FS, linuxHost(Map.of("XDG_RUNTIME_DIR", "/run/user/1000")), WS,
                declare(DeclLayer.workspace(), null, null, null, "/home/u/.cache/magus-run", "ro", 0),
                declare(DeclLayer.spell("x"), null, null, null, "/run/user/1000", "ro", 1));
        assertThat(refusedWithNote(p, "/home/u/.cache/magus-run")).as(p.notes().toString()).isTrue();
        assertThat(refusedWithNote(p, "/run/user/1000")).as(p.notes().toString()).isTrue();
        assertThat(granted(p, "/home/u/.cache/magus-run/server.sock.token", Access.READ)).isFalse();
        assertThat(granted(p, "/run/user/1000/magus/server.sock.token", Access.READ)).isFalse();
    }

    @Test
    void aStateDirMovedByXdgStateHomeIsKeptOutThere() {
        Policy p = build(FS, linuxHost(Map.of("XDG_STATE_HOME", "/srv/state")), WS,
                declare(DeclLayer.workspace(), null, null, null, "/srv", "rw", 0));
        assertThat(refusedWithNote(p, "/srv")).as(p.notes().toString()).isTrue();
        assertThat(granted(p, "/srv/state/magus/checkouts/x", Access.WRITE)).isFalse();
    }

    @Test
    void theInstallationMayBeReadButNeverWrittenThroughADeclaredGrant() {
        Policy read = build(FS, linuxHost(Map.of()), WS, declare(DeclLayer.workspace(), null, null, null, "/opt", "ro", 0));
        assertThat(granted(read, "/opt/magus/lib/x.jar", Access.READ)).isTrue();
        Policy write = build(FS, linuxHost(Map.of()), WS, declare(DeclLayer.workspace(), null, null, null, "/opt", "rw", 0));
        assertThat(refusedWithNote(write, "/opt")).as(write.notes().toString()).isTrue();
        assertThat(granted(write, "/opt/magus/lib/x.jar", Access.WRITE)).isFalse();
    }
}
