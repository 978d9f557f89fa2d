package dev.magus.landlock.supervise;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Operation;
import dev.magus.landlock.denials.PrefixConfirmer;
import dev.magus.policy.net.NetworkMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The supervisor on real children that drop to nobody: silent readers of a secret give exact
 * MGS2001 with source=supervisor, without a line of output.
 */
class SupervisorTest {
    @TempDir
    Path tmp;
    Path home;
    Path ws;
    Path key;

    @BeforeEach
    void setUp() throws IOException {
        SupervisedChildren.assume();
        home = SupervisedChildren.open(tmp.resolve("home"));
        ws = SupervisedChildren.open(tmp.resolve("ws"));
        Path ssh = SupervisedChildren.open(home.resolve(".ssh"));
        key = Files.writeString(ssh.resolve("id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
    }

    @Test
    void aSilentCatOfTheKeyIsAnExactReadDenial() {
        var r = SupervisedChildren.sh(ws, SupervisedChildren.env(home), NetworkMode.OPEN, new PrefixConfirmer(home),
                "cat ~/.ssh/id_rsa 2>/dev/null; echo done");
        assertThat(r.out()).isEqualTo("done\n");
        assertThat(r.err()).isEmpty();
        assertThat(r.denials()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2001);
            assertThat(d.operation()).isEqualTo(Operation.READ);
            assertThat(d.subject()).isEqualTo(key.toString());
            assertThat(d.source()).isEqualTo(Supervisor.SOURCE);
            assertThat(d.details()).containsKey("pids");
        });
        assertThat(r.supervisor().failure()).isEmpty();
    }

    @Test
    void aSilentPythonReaderIsAnExactReadDenial() {
        SupervisedChildren.assume(Files.isExecutable(Path.of("/usr/bin/python3")), "no /usr/bin/python3");
        var r = SupervisedChildren.sh(ws, SupervisedChildren.env(home), NetworkMode.OPEN, new PrefixConfirmer(home),
                "/usr/bin/python3 -c \"import os\ntry:\n    open(os.path.expanduser('~/.ssh/id_rsa')).read()\n"
                        + "except Exception:\n    pass\n\"");
        assertThat(r.status()).isZero();
        assertThat(r.out() + r.err()).isEmpty();
        assertThat(r.denials()).extracting(Diagnostic::code, Diagnostic::subject, Diagnostic::source)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Code.MGS2001, key.toString(), Supervisor.SOURCE));
    }
}
