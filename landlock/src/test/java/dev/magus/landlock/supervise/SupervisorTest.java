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

    @Test
    void aSilentConnectUnderNetworkNoneIsAnExactConnectDenial() {
        SupervisedChildren.assume(Files.isExecutable(Path.of("/usr/bin/python3")), "no /usr/bin/python3");
        var r = SupervisedChildren.sh(ws, SupervisedChildren.env(home), NetworkMode.NONE, new PrefixConfirmer(home),
                "/usr/bin/python3 -c \"import socket\ntry:\n    socket.create_connection(('127.0.0.1', 9), 1)\n"
                        + "except Exception:\n    pass\n\"");
        assertThat(r.status()).isZero();
        assertThat(r.out() + r.err()).isEmpty();
        assertThat(r.denials()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2013);
            assertThat(d.operation()).isEqualTo(Operation.CONNECT);
            assertThat(d.subject()).isEqualTo("127.0.0.1:9");
            assertThat(d.source()).isEqualTo(Supervisor.SOURCE);
        });
    }

    @Test
    void aParallelBuildOfAllowedAccessesGivesNoReport() throws IOException {
        SupervisedChildren.assume(Files.isExecutable(Path.of("/usr/bin/make")) && Files.isExecutable(Path.of("/usr/bin/cc")),
                "no make or cc");
        StringBuilder mk = new StringBuilder("OBJS =");
        for (int i = 0; i < 8; i++) {
            Files.writeString(ws.resolve("f" + i + ".c"), "#include <stdio.h>\nint f" + i + "(void) { return " + i + "; }\n");
            mk.append(" f").append(i).append(".o");
        }
        Files.writeString(ws.resolve("main.c"), "#include <stdio.h>\nint main(void) { puts(\"built\"); return 0; }\n");
        mk.append(" main.o\nprog: $(OBJS)\n\tcc -o $@ $(OBJS)\n%.o: %.c\n\tcc -c -o $@ $<\n");
        Files.writeString(ws.resolve("Makefile"), mk.toString());
        java.util.Map<String, String> env = new java.util.HashMap<>(SupervisedChildren.env(home));
        env.put("TMPDIR", ws.toString());
        var r = SupervisedChildren.sh(ws, env, NetworkMode.OPEN, new RulesConfirmer(SupervisedChildren.rules(ws)),
                "make -s -j4 && ./prog");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("built\n");
        assertThat(r.supervisor().answered()).as("intercepted calls").isGreaterThan(50);
        assertThat(r.denials()).isEmpty();
    }

    @Test
    void anIdleSupervisorSleepsInsteadOfPollingWithoutEnd() {
        // ppoll leaves the time not waited in its timeout: one reused after it ran out waits no more.
        var r = SupervisedChildren.sh(ws, SupervisedChildren.env(home), NetworkMode.OPEN, new PrefixConfirmer(home),
                "sleep 0.5; cat /etc/hostname > /dev/null; echo done");
        assertThat(r.out()).isEqualTo("done\n");
        assertThat(r.supervisor().waits).as("waits on the listener").isLessThan(r.supervisor().answered() + 100);
    }

    @Test
    void aKilledSupervisorFailsTheChildsNextCall() throws Exception {
        Path go = ws.resolve("go");
        var r = SupervisedChildren.sh(ws, SupervisedChildren.env(home), NetworkMode.OPEN, new PrefixConfirmer(home),
                ": > ready; while [ ! -e go ]; do :; done; cat /etc/hostname > /dev/null 2>&1; echo \"cat=$?\"", s -> {
                    long ready = System.nanoTime() + 5_000_000_000L;
                    while (!Files.exists(ws.resolve("ready")) && System.nanoTime() < ready) {
                        Thread.onSpinWait();
                    }
                    s.kill();
                    long until = System.nanoTime() + 5_000_000_000L;
                    while (s.failure().isEmpty() && System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                    try {
                        Files.writeString(go, "");
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
        assertThat(r.supervisor().failure()).hasValueSatisfying(f -> assertThat(f).contains("stopped"));
        // The shell's own builtins go on; its exec of cat fails (the kernel's ENOSYS, sh's 126 or 127).
        assertThat(r.out()).startsWith("cat=").isNotEqualTo("cat=0\n");
    }

    /** Waits for {@code file}, as the child's signal that it is where the test wants it. */
    private static void await(Path file) {
        long until = System.nanoTime() + 5_000_000_000L;
        while (!Files.exists(file) && System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }

    @Test
    void aClosedListenerFailsTheChildsNextOpen() {
        // The test hook that closes the listener is kill(): the shell's own open (a redirection of
        // a regular builtin, which does not end the shell when it fails) then fails.
        var r = SupervisedChildren.sh(ws, SupervisedChildren.env(home), NetworkMode.OPEN, new PrefixConfirmer(home),
                ": > ready; while [ ! -e go ]; do :; done; read x < /etc/hostname; echo \"open=$?\"", s -> {
                    await(ws.resolve("ready"));
                    s.kill();
                    long until = System.nanoTime() + 5_000_000_000L;
                    while (s.failure().isEmpty() && System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                    touch(ws.resolve("go"));
                });
        assertThat(r.out()).startsWith("open=").isNotEqualTo("open=0\n");
        assertThat(r.err()).contains("Function not implemented");
        assertThat(r.supervisor().failure()).isPresent();
    }

    @Test
    void aSupervisorStuckOnOneCallFailsTheRunClosedInsteadOfHangingTheChild() {
        long start = System.nanoTime();
        var r = SupervisedChildren.sh(ws, SupervisedChildren.env(home), NetworkMode.OPEN, new PrefixConfirmer(home),
                ": > ready; while [ ! -e go ]; do :; done; read x < /etc/hostname; echo \"open=$?\"", s -> {
                    await(ws.resolve("ready"));
                    s.stall = java.time.Duration.ofMillis(300);
                    // The next call holds the thread for 2 s, as a read of the caller's memory that
                    // blocks would (the test lets it go, so that the supervisor's reports complete).
                    // Parked until then, whatever wakes it early (a permit left by an unpark is one).
                    s.beforeAnswer = () -> {
                        long until = System.nanoTime() + 2_000_000_000L;
                        for (long left; (left = until - System.nanoTime()) > 0; ) {
                            java.util.concurrent.locks.LockSupport.parkNanos(left);
                        }
                    };
                    touch(ws.resolve("go"));
                });
        assertThat(r.out()).startsWith("open=").isNotEqualTo("open=0\n");
        assertThat(r.err()).contains("Function not implemented");
        assertThat(r.supervisor().failure()).hasValueSatisfying(f -> assertThat(f).contains("fell behind"));
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).isLessThan(java.time.Duration.ofSeconds(8));
    }

    private static void touch(Path p) {
        try {
            Files.writeString(p, "");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
