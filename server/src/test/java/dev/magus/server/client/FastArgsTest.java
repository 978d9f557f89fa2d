package dev.magus.server.client;

import static org.assertj.core.api.Assertions.assertThat;

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
    }
}
