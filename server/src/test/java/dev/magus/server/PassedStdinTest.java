package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client's standard input passed as a descriptor ({@code SCM_RIGHTS}) to a real server on a
 * real Unix socket, the client a python3 script that passes what a hostile one would: a pipe the
 * child reads itself, two descriptors, a directory, the wrong byte, and descriptors sent where the
 * server never receives any (before the token is checked, with a frame). The server is this JVM,
 * so what it kept open is in {@code /proc/self/fd}.
 */
class PassedStdinTest {
    private static final Path PYTHON = Path.of("/usr/bin/python3");

    /** argv: socket token mode script; prints "exit N", then the child's stdout and magus's stderr lines. */
    private static final String CLIENT = """
            import json, os, socket, struct, sys
            path, token, mode, script = sys.argv[1:5]
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            def frame(kind, body):
                return struct.pack('>IB', len(body) + 1, kind) + body
            def control(obj):
                return frame(0, json.dumps(obj).encode())
            r, w = os.pipe()
            os.write(w, b'a\\nb\\nc\\n')
            os.close(w)
            print('inode', os.fstat(r).st_ino, flush=True)
            hello = control({'type': 'hello', 'version': VERSION, 'token': token if mode != 'unauthenticated' else 'x' * 64})
            if mode == 'unauthenticated':
                socket.send_fds(s, [hello], [r])
            else:
                s.sendall(hello)
            command = {'type': 'command', 'args': ['run', '--', 'sh', '-c', script], 'cwd': os.getcwd(),
                       'env': dict(os.environ), 'stdinFd': mode != 'with-frame'}
            if mode == 'with-frame':
                socket.send_fds(s, [control(command)], [r])
            else:
                s.sendall(control(command))
            buf = b''
            out, err = b'', b''
            def frames():
                global buf
                while True:
                    while len(buf) >= 4 and len(buf) >= 4 + struct.unpack('>I', buf[:4])[0]:
                        n = struct.unpack('>I', buf[:4])[0]
                        f, buf = buf[4:4 + n], buf[4 + n:]
                        yield f
                    more = s.recv(65536)
                    if not more:
                        return
                    buf += more
            for f in frames():
                kind, body = f[0], f[1:]
                if kind == 1:
                    out += body
                elif kind == 2:
                    err += body
                elif kind == 0:
                    m = json.loads(body)
                    if m['type'] == 'accepted' and m.get('stdinFd'):
                        if mode == 'pass':
                            socket.send_fds(s, [b'F'], [r])
                        elif mode == 'two':
                            socket.send_fds(s, [b'F'], [r, r])
                        elif mode == 'directory':
                            d = os.open('/', os.O_RDONLY)
                            socket.send_fds(s, [b'F'], [d])
                        elif mode == 'other-byte':
                            socket.send_fds(s, [b'X'], [r])
                        elif mode == 'none':
                            s.sendall(b'F' + control({'type': 'stdin-end'}))
                    elif m['type'] in ('exit', 'refused'):
                        print('exit', m.get('status', m.get('code')))
                        break
            sys.stdout.write(out.decode())
            sys.stdout.write(err.decode())
            """;

    @TempDir
    Path root;

    @BeforeEach
    void python() {
        String why = "skipped: no " + PYTHON + " to pass descriptors with";
        if (!Files.isExecutable(PYTHON)) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(Files.isExecutable(PYTHON), why);
    }

    record Ran(long inode, List<String> lines) {
    }

    private Ran client(Fixture f, String mode, String script) throws Exception {
        Path py = Files.writeString(root.resolve("client.py"),
                CLIENT.replace("'version': VERSION", "'version': " + dev.magus.server.protocol.Frame.VERSION));
        ProcessBuilder pb = new ProcessBuilder(PYTHON.toString(), py.toString(), f.dir.socket().toString(), f.server.token(),
                mode, script).directory(f.workspace.toFile()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(f.env);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        List<String> lines = new ArrayList<>(new String(out, StandardCharsets.UTF_8).lines().toList());
        assertThat(lines).as("the client's output").isNotEmpty();
        long inode = Long.parseLong(lines.remove(0).split(" ")[1]);
        return new Ran(inode, lines);
    }

    /** Whether this JVM (the server) still holds a descriptor of the pipe {@code inode}, after a moment for the run's end. */
    private static boolean held(long inode) throws Exception {
        String pipe = "pipe:[" + inode + "]";
        for (int i = 0; i < 50; i++) {
            boolean found = false;
            try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
                for (Path fd : fds.toList()) {
                    try {
                        found |= Files.readSymbolicLink(fd).toString().equals(pipe);
                    } catch (IOException e) {
                        // the listing's own descriptor, gone by now
                    }
                }
            }
            if (!found) {
                return false;
            }
            Thread.sleep(100);
        }
        return true;
    }

    @Test
    void aPassedPipeIsTheChildsOwnInputAndTheServerKeepsNoneOfIt() throws Exception {
        try (Fixture f = new Fixture(root)) {
            Ran r = client(f, "pass", "ls -l /proc/self/fd/0 | grep -c pipe; wc -l");
            assertThat(r.lines()).as("%s", r.lines()).startsWith("exit 0", "1", "3");
            assertThat(held(r.inode())).as("the server closed its copy once the run ended").isFalse();
            // Without a descriptor after the byte, stdin comes as frames: here none, and its end.
            assertThat(client(f, "none", "wc -c").lines()).startsWith("exit 0", "0");
        }
    }

    @Test
    void twoDescriptorsADirectoryOrAnotherByteRefuseTheRunAndCloseWhatCame() throws Exception {
        try (Fixture f = new Fixture(root)) {
            Path ran = root.resolve("ran");
            String touch = "touch " + ran;
            Ran two = client(f, "two", touch);
            assertThat(two.lines()).as("%s", two.lines()).first().isEqualTo("exit 125");
            assertThat(two.lines()).anyMatch(l -> l.contains("MGS2004") && l.contains("more than one descriptor"));
            assertThat(held(two.inode())).isFalse();
            Ran dir = client(f, "directory", touch);
            assertThat(dir.lines()).as("%s", dir.lines()).first().isEqualTo("exit 125");
            assertThat(dir.lines()).anyMatch(l -> l.contains("MGS2004") && l.contains("a directory"));
            Ran other = client(f, "other-byte", touch);
            assertThat(other.lines()).first().isEqualTo("exit 125");
            assertThat(other.lines()).anyMatch(l -> l.contains("MGS2004") && l.contains("marker"));
            assertThat(held(other.inode())).isFalse();
            assertThat(ran).as("no refused run started its child").doesNotExist();
        }
    }

    @Test
    void aDescriptorBeforeTheTokenOrWithAFrameIsNeverReceived() throws Exception {
        try (Fixture f = new Fixture(root)) {
            Ran refused = client(f, "unauthenticated", "true");
            assertThat(refused.lines()).first().isEqualTo("exit MGS2011");
            assertThat(held(refused.inode())).as("the kernel closed it: the server read no descriptor").isFalse();
            // Sent with the command frame, it is dropped the same way; the run takes its stdin as frames.
            Ran withFrame = client(f, "with-frame", "echo ran");
            assertThat(withFrame.lines()).as("%s", withFrame.lines()).contains("ran");
            assertThat(held(withFrame.inode())).isFalse();
        }
    }
}
