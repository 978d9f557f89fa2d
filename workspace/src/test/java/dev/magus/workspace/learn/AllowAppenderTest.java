package dev.magus.workspace.learn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

class AllowAppenderTest {

    private static final List<Learned.Addition> ADD = List.of(
            new Learned.Addition("~/.fakepm/cache", "rw", List.of("MGS2002 write /h/.fakepm/cache/x"), false));

    private static String extended(String text) {
        AllowAppender.Result r = AllowAppender.append(text, ADD);
        assertThat(r).isInstanceOf(AllowAppender.Result.Extended.class);
        return ((AllowAppender.Result.Extended) r).text();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> allow(String text) {
        Map<String, Object> doc = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
        return (List<Map<String, Object>>) ((Map<String, Object>) doc.get("sandbox")).get("allow");
    }

    @Test
    void after_the_last_item_of_an_existing_list_keeping_every_other_line() {
        String before = """
                # my workspace
                sandbox:
                  mode: required   # keep this
                  allow:
                    - path: "~/.m2"
                      mode: ro

                    # a comment about the next key
                  env:
                    passthrough: [JAVA_HOME]
                projects:
                  - dir: .
                """;
        String after = extended(before);
        assertThat(allow(after)).extracting(m -> m.get("path") + " " + m.get("mode"))
                .containsExactly("~/.m2 ro", "~/.fakepm/cache rw");
        // Nothing removed or changed: the old lines are all there, in order.
        assertThat(after.lines().filter(l -> !l.contains("fakepm") && !l.contains("magus learn") && !l.equals("      mode: rw")))
                .containsExactlyElementsOf(before.lines().toList());
        assertThat(after).contains("    # magus learn: MGS2002 write /h/.fakepm/cache/x\n    - path: \"~/.fakepm/cache\"\n      mode: rw\n");
    }

    @Test
    void items_at_the_keys_own_indentation() {
        String after = extended("sandbox:\n  allow:\n  - path: /opt/x\n    mode: rx\n  mode: best-effort\n");
        assertThat(allow(after)).extracting(m -> m.get("path")).containsExactly("/opt/x", "~/.fakepm/cache");
    }

    @Test
    void a_new_allow_key_at_the_end_of_sandbox_and_a_new_sandbox_at_the_end_of_the_file() {
        assertThat(allow(extended("sandbox:\n    mode: required\nprojects: []\n"))).hasSize(1);
        assertThat(allow(extended("projects: []\n"))).hasSize(1);
        assertThat(allow(extended(""))).hasSize(1);
        assertThat(allow(extended("sandbox:\n  allow: []   # none yet\n"))).hasSize(1);
    }

    @Test
    void flow_style_is_refused_with_the_line() {
        assertThat(AllowAppender.append("sandbox: {mode: required}\n", ADD))
                .isEqualTo(new AllowAppender.Result.Refused("sandbox: is written in flow style on line 1; add the entries by hand"));
        assertThat(AllowAppender.append("sandbox:\n  allow: [{path: /x}]\n", ADD))
                .isInstanceOfSatisfying(AllowAppender.Result.Refused.class, r -> assertThat(r.reason()).contains("line 2"));
    }
}
