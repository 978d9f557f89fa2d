package dev.magus.server.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.protocol.Frame;
import dev.magus.server.protocol.FrameCodec;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the fast client forwards itself, and what it leaves to the full command line. */
class FastArgsTest {
    private static Optional<FastArgs> parse(String... args) {
        return FastArgs.parse(args);
    }

    @Test
    void aPlainRunWithItsOptions() {
        FastArgs a = parse("run", "--sandbox=required", "--env", "A=1", "--env=B=x=y", "--unset", "C", "--stdin", "-v", "--",
                "sh", "-c", "echo -n").orElseThrow();
        assertThat(a.command()).containsExactly("sh", "-c", "echo -n");
        assertThat(a.sandbox()).contains("required");
        assertThat(a.set()).isEqualTo(Map.of("A", "1", "B", "x=y"));
        assertThat(a.unset()).containsExactly("C");
        assertThat(a.stdin()).isTrue();
        assertThat(a.verbose()).isTrue();
        assertThat(parse("run", "true").orElseThrow().command()).isEqualTo(List.of("true"));
        assertThat(parse("run", "--sandbox", "off", "make", "all").orElseThrow().sandbox()).contains("off");
        // As for picocli's run, which stops at its first positional: the rest is the command's.
        assertThat(parse("run", "ls", "-la", "--local").orElseThrow().command()).containsExactly("ls", "-la", "--local");
    }

    @Test
    void everyOptionOfTheGrammarIsReadAsItsKind() {
        for (String flag : FastGrammar.FLAGS) {
            assertThat(parse("run", flag, "A=1", "cmd").orElseThrow().command()).as(flag).containsExactly("A=1", "cmd");
        }
        for (String valued : FastGrammar.VALUED) {
            assertThat(parse("run", valued, "A=1", "cmd").orElseThrow().command()).as(valued).containsExactly("cmd");
        }
        assertThat(parse("run", "--events", "A=1", "cmd")).as("not in the grammar").isEmpty();
    }

    @Test
    void stdinIsTheChildsUnlessNoStdinAndQuietIsAPlainRunsToo() {
        assertThat(parse("run", "wc", "-l").orElseThrow().stdin()).as("the default, as the full command line's").isTrue();
        assertThat(parse("run", "--no-stdin", "--", "wc", "-l").orElseThrow().stdin()).isFalse();
        assertThat(parse("run", "--no-stdin", "--stdin", "--", "wc").orElseThrow().stdin()).isTrue();
        assertThat(parse("run", "-q", "--", "true").orElseThrow().quiet()).isTrue();
        assertThat(parse("run", "--quiet", "--", "true").orElseThrow().quiet()).isTrue();
        assertThat(parse("run", "--", "true").orElseThrow().quiet()).isFalse();
        assertThat(parse("run", "--quiet=yes", "--", "true")).isEmpty();
    }

    @Test
    void grantsHostsOpAndTargetAreForwardedToo() throws Exception {
        FastArgs a = parse("run", "--allow", "out:rw", "--allow=x", "--pass", "FOO", "--allow-host", "example.org",
                "--op=python", "--", "pytest").orElseThrow();
        Frame f = FrameCodec.decode(json(FastClient.submit(a, Map.of("HOME", "/h"))));
        assertThat(f).isInstanceOfSatisfying(Frame.Submit.class, s -> {
            assertThat(s.argv()).containsExactly("pytest");
            assertThat(s.allow()).containsExactly("out:rw", "x");
            assertThat(s.pass()).containsExactly("FOO");
            assertThat(s.allowHosts()).containsExactly("example.org");
            assertThat(s.op()).contains("python");
            assertThat(s.target()).isEmpty();
            assertThat(s.env()).isEqualTo(Map.of("HOME", "/h"));
        });
        // With --target the command is what is appended to the target's, and may be empty.
        FastArgs t = parse("run", "--target", "api/test").orElseThrow();
        assertThat(FrameCodec.decode(json(FastClient.submit(t, Map.of())))).isInstanceOfSatisfying(Frame.Submit.class, s -> {
            assertThat(s.target()).contains("api/test");
            assertThat(s.argv()).isEmpty();
            assertThat(s.allow()).isEmpty();
        });
        assertThat(parse("run", "--target", "t", "--", "-k", "x").orElseThrow().command()).containsExactly("-k", "x");
    }

    private static byte[] json(StringBuilder b) {
        byte[] body = b.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] frame = new byte[body.length + 1];
        System.arraycopy(body, 0, frame, 1, body.length); // kind 0: JSON
        return frame;
    }

    @Test
    void everythingElseIsTheFullCommandLines() {
        assertThat(parse("server", "status")).isEmpty();
        assertThat(parse("run")).isEmpty();
        assertThat(parse("run", "--")).isEmpty();
        assertThat(parse("run", "--local", "--", "true")).isEmpty();
        assertThat(parse("run", "--events", "-", "--", "true")).isEmpty();
        assertThat(parse("run", "--ui", "--", "true")).isEmpty();
        assertThat(parse("run", "--help")).isEmpty();
        assertThat(parse("run", "--env", "NOEQUALS", "--", "true")).isEmpty();
        assertThat(parse("run", "--sandbox")).isEmpty();
        assertThat(parse("run", "--sandbox=off", "--sandbox=required", "--", "true")).isEmpty();
        assertThat(parse("run", "--stdin=yes", "--", "true")).isEmpty();
        assertThat(parse("run", "--op", "a", "--op", "b", "--", "true")).isEmpty();
        assertThat(parse("run", "--allow")).isEmpty();
    }
}
