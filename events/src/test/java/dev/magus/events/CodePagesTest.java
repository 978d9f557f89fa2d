package dev.magus.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** The pages behind {@code magus explain}: present, headed correctly, and their YAML is what magus.yaml accepts. */
class CodePagesTest {

    private static final Pattern YAML_BLOCK = Pattern.compile("(?ms)^```yaml\\n(.*?)^```$");
    private static final Pattern CODE_REF = Pattern.compile("MGS\\d{4}");

    // What the documentation lets a magus.yaml `sandbox:` section say.
    private static final Set<String> SANDBOX_KEYS = Set.of("mode", "controlFiles", "allow", "env", "network");
    private static final Set<String> NETWORK_KEYS = Set.of("mode", "allow", "ports", "bind", "unix");
    private static final Set<String> NETWORK_MODES = Set.of("open", "none", "proxy");
    private static final Pattern HOST = Pattern.compile("(\\*\\.)?[a-z0-9_-]+(\\.[a-z0-9_-]+)+");
    private static final Set<String> ALLOW_KEYS = Set.of("name", "env", "base", "path", "mode");
    private static final Set<String> ENV_KEYS = Set.of("passthrough");
    private static final Set<String> MODES = Set.of("off", "best-effort", "required");
    private static final Set<String> ACCESS_MODES = Set.of("ro", "rw", "rx", "rwx");
    private static final Set<String> BASES = Set.of(
            "xdgData", "xdgCache", "xdgConfig", "xdgState", "userCache", "userConfig", "home", "workspace");
    private static final Pattern PASSTHROUGH = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*|[A-Za-z0-9_]{2,}_\\*");

    @ParameterizedTest
    @EnumSource(Code.class)
    void everyCodeHasAPageHeadedByItsCodeAndSummary(Code code) {
        String page = code.page();

        assertThat(page.lines().findFirst()).hasValue("# " + code.name() + " — " + code.summary());
        assertThat(page).contains("Severity: " + code.severity().name().toLowerCase(Locale.ROOT) + ".");
        assertThat(page.lines().count()).as("a page is short, like a man page").isLessThanOrEqualTo(55);
        assertThat(page.split("```", -1).length % 2).as("every fence is closed").isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Code.class)
    void aPageNamesOnlyCodesThatExist(Code code) {
        Matcher m = CODE_REF.matcher(code.page());
        while (m.find()) {
            assertThat(Code.parse(m.group())).as(m.group() + " in " + code).isPresent();
        }
    }

    @ParameterizedTest
    @EnumSource(Code.class)
    void everyYamlBlockIsAValidSandboxSection(Code code) {
        for (String block : yamlBlocks(code.page())) {
            Object doc = yaml().load(block);
            assertThat(doc).as(code + ":\n" + block).isInstanceOf(Map.class);
            Map<?, ?> top = (Map<?, ?>) doc;
            assertThat(stringKeys(top)).as(code + " top level").containsExactly("sandbox");
            checkSandbox(code, (Map<?, ?>) top.get("sandbox"));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Code.class, names = {"MGS2001", "MGS2002", "MGS2007"})
    void everyAccessPageShowsTheAllowEntryToAdd(Code code) {
        List<String> blocks = yamlBlocks(code.page());
        assertThat(blocks).as(code + " has a yaml block").isNotEmpty();
        String wanted = switch (code) {
            case MGS2001 -> "ro";
            case MGS2002 -> "rw";
            default -> "rx";
        };
        boolean found = false;
        for (String block : blocks) {
            assertThat(block).contains("sandbox:").contains("allow:");
            Map<?, ?> sandbox = (Map<?, ?>) ((Map<?, ?>) yaml().load(block)).get("sandbox");
            for (Object entry : (List<?>) sandbox.get("allow")) {
                found |= wanted.equals(((Map<?, ?>) entry).get("mode"));
            }
        }
        assertThat(found).as(code + " shows an allow entry with mode " + wanted).isTrue();
    }

    @org.junit.jupiter.api.Test
    void theCheckerRejectsWhatMagusYamlRejects() {
        // The validation above must be able to fail: a bare `off` is a YAML 1.1 boolean,
        // an unknown base and a too-short prefix pattern are MGS2004.
        assertThat(invalid("sandbox:\n  mode: off\n")).isTrue();
        assertThat(invalid("sandbox:\n  allow:\n    - base: cache\n      path: x\n")).isTrue();
        assertThat(invalid("sandbox:\n  env:\n    passthrough: [\"GO*\"]\n")).isTrue();
        assertThat(invalid("sandbox:\n  mode: \"off\"\n  env:\n    passthrough: [\"MISE_*\"]\n")).isFalse();
        assertThat(invalid("sandbox:\n  network:\n    mode: closed\n")).isTrue();
        assertThat(invalid("sandbox:\n  network:\n    allow: [\"*\"]\n")).isTrue();
        assertThat(invalid("sandbox:\n  network:\n    ports: [70000]\n")).isTrue();
        assertThat(invalid("sandbox:\n  network:\n    mode: proxy\n    allow: [\"*.example.org\"]\n")).isFalse();
    }

    private static boolean invalid(String block) {
        try {
            checkSandbox(Code.MGS2004, (Map<?, ?>) ((Map<?, ?>) yaml().load(block)).get("sandbox"));
            return false;
        } catch (AssertionError e) {
            return true;
        }
    }

    private static void checkSandbox(Code code, Map<?, ?> sandbox) {
        assertThat(SANDBOX_KEYS).as(code + " sandbox keys").containsAll(stringKeys(sandbox));
        if (sandbox.containsKey("mode")) {
            assertThat(sandbox.get("mode")).as(code + " mode").isIn(MODES);
        }
        if (sandbox.containsKey("allow")) {
            assertThat(sandbox.get("allow")).isInstanceOf(List.class);
            for (Object o : (List<?>) sandbox.get("allow")) {
                Map<?, ?> entry = (Map<?, ?>) o;
                assertThat(ALLOW_KEYS).as(code + " allow keys").containsAll(stringKeys(entry));
                assertThat(entry.get("path")).as(code + " allow entry needs a path").isInstanceOf(String.class);
                if (entry.containsKey("mode")) {
                    assertThat(entry.get("mode")).as(code + " access mode").isIn(ACCESS_MODES);
                }
                if (entry.containsKey("base")) {
                    assertThat(entry.get("base")).as(code + " base").isIn(BASES);
                    assertThat((String) entry.get("path")).as("path under a base is relative").doesNotStartWith("/").doesNotContain("..");
                } else {
                    assertThat((String) entry.get("path")).as("path without base").matches("[/~$].*");
                }
            }
        }
        if (sandbox.containsKey("network")) {
            Map<?, ?> network = (Map<?, ?>) sandbox.get("network");
            assertThat(NETWORK_KEYS).as(code + " network keys").containsAll(stringKeys(network));
            if (network.containsKey("mode")) {
                assertThat(network.get("mode")).as(code + " network mode").isIn(NETWORK_MODES);
            }
            Object hosts = network.containsKey("allow") ? network.get("allow") : List.of();
            for (Object h : (List<?>) hosts) {
                assertThat((String) h).as(code + " host").matches(HOST);
            }
            for (String key : List.of("ports", "bind")) {
                Object ports = network.containsKey(key) ? network.get(key) : List.of();
                for (Object port : (List<?>) ports) {
                    assertThat((Integer) port).as(code + " port").isBetween(1, 65535);
                }
            }
        }
        if (sandbox.containsKey("env")) {
            Map<?, ?> env = (Map<?, ?>) sandbox.get("env");
            assertThat(ENV_KEYS).containsAll(stringKeys(env));
            for (Object p : (List<?>) env.get("passthrough")) {
                assertThat(p).isInstanceOf(String.class);
                assertThat((String) p).as(code + " passthrough pattern").matches(PASSTHROUGH);
            }
        }
    }

    private static List<String> stringKeys(Map<?, ?> map) {
        List<String> keys = new ArrayList<>();
        for (Object k : map.keySet()) {
            assertThat(k).isInstanceOf(String.class);
            keys.add((String) k);
        }
        return keys;
    }

    private static List<String> yamlBlocks(String page) {
        List<String> blocks = new ArrayList<>();
        Matcher m = YAML_BLOCK.matcher(page);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        return blocks;
    }

    private static Yaml yaml() {
        return new Yaml(new SafeConstructor(new LoaderOptions()));
    }
}
