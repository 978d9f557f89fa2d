package dev.magus.workspace.learn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LearnedTest {

    private static Diagnostic hint(Code code, Operation op, String subject, String path, String mode) {
        return new Diagnostic(code, "x", subject, op, Layer.KERNEL, "inferred:stderr",
                Map.of("class", "hint", "allow_path", path, "allow_mode", mode, "allow_yaml", "..."));
    }

    @Test
    void one_entry_per_path_with_the_union_of_modes_none_under_a_covering_one_and_attacks_apart() {
        Learned l = Learned.from(List.of(
                hint(Code.MGS2001, Operation.READ, "/h/.fakepm/cache/a", "~/.fakepm/cache", "ro"),
                hint(Code.MGS2002, Operation.WRITE, "/h/.fakepm/cache/x", "~/.fakepm/cache", "rw"),
                hint(Code.MGS2001, Operation.READ, "/h/.fakepm/cache/sub/b", "~/.fakepm/cache/sub", "ro"),
                hint(Code.MGS2001, Operation.READ, "/h/.other/c", "~/.other", "ro"),
                new Diagnostic(Code.MGS2001, "x", "/h/.npmrc", Operation.READ, Layer.KERNEL, "audit",
                        Map.of("class", "attack", "attack", "~/.npmrc is a credential store")),
                new Diagnostic(Code.MGS2001, "x", "/proc/self/coredump_filter", Operation.READ, Layer.KERNEL, "audit",
                        Map.of("class", "benign")),
                new Diagnostic(Code.MGS2003, "x", "", Operation.NONE, Layer.POLICY, "env", Map.of())));
        assertThat(l.additions()).extracting(a -> a.path() + " " + a.mode())
                .containsExactly("~/.fakepm/cache rw", "~/.other ro");
        assertThat(l.additions().get(0).because()).containsExactly("MGS2001 read /h/.fakepm/cache/a",
                "MGS2002 write /h/.fakepm/cache/x", "MGS2001 read /h/.fakepm/cache/sub/b");
        assertThat(l.attacks()).containsExactly("read /h/.npmrc: ~/.npmrc is a credential store");
        assertThat(l.benign()).isEqualTo(1);
        assertThat(l.snippet()).doesNotContain("npmrc").contains("    - path: \"~/.fakepm/cache\"\n      mode: rw\n");
    }

    @Test
    void a_path_the_child_printed_can_never_end_its_comment_line_and_become_configuration() {
        // SnakeYAML ends a comment at CR, NEL, LS or PS, not only at LF (the output pump's split).
        for (String br : List.of("\r", "\u0085", "\u2028", "\u2029")) {
            String subject = "/opt/x" + br + "    - path: \"~/.aws\"" + br + "      mode: ro" + br + "    #";
            Learned l = Learned.from(List.of(hint(Code.MGS2001, Operation.READ, subject, "/opt", "ro")));
            AllowAppender.Result r = AllowAppender.append("sandbox:\n  mode: required\n", l.additions());
            String text = ((AllowAppender.Result.Extended) r).text();
            dev.magus.workspace.config.WorkspaceConfig c =
                    dev.magus.workspace.config.WorkspaceConfig.read(text, java.nio.file.Path.of("/w/magus.yaml"));
            assertThat(c.sandbox().allow()).as(text).hasSize(1);
            assertThat(c.sandbox().allow().get(0).path()).as(text).contains("/opt");
        }
    }

    @Test
    void networkAndSocketRefusalsAreShownToDeclareByHandNeverAdded() {
        Diagnostic socket = Diagnostic.of(Code.MGS2015, "socket denied", "/run/postgresql/.s.PGSQL.5432", Operation.SOCKET,
                Layer.KERNEL, "inferred:stderr").withDetail("class", "hint")
                .withDetail("allow_yaml", "sandbox:\n  network:\n    unix: [/run/postgresql/.s.PGSQL.5432]\n");
        Learned l = Learned.from(List.of(socket));
        assertThat(l.additions()).isEmpty();
        assertThat(l.byHand()).containsExactly("MGS2015 /run/postgresql/.s.PGSQL.5432: sandbox: / network: / "
                + "unix: [/run/postgresql/.s.PGSQL.5432]");
    }
}
