package dev.magus.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.fs.Ruleset;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The classification as a table, on an imagined host (no filesystem): which paths exist is
 * listed here, so the same table holds on any machine.
 */
class DenialAdviceTest {
    private static final Path HOME = Path.of("/home/u");
    private static final Set<Path> DIRS = Set.of(Path.of("/"), Path.of("/home"), HOME, HOME.resolve(".m2"),
            HOME.resolve(".m2/repository"), HOME.resolve(".m2/repository/org"), HOME.resolve(".cache"),
            HOME.resolve(".cache/tool"), HOME.resolve(".config"), HOME.resolve(".config/gh"), HOME.resolve(".ssh"),
            Path.of("/opt"), Path.of("/opt/sdk"), Path.of("/etc"), Path.of("/srv"), Path.of("/srv/data"),
            HOME.resolve("vault"));
    private static final Set<Path> FILES = Set.of(HOME.resolve(".ssh/id_rsa"), HOME.resolve(".gitconfig"),
            HOME.resolve(".bashrc"), HOME.resolve(".config/gh/hosts.yml"), HOME.resolve(".m2/settings.xml"),
            Path.of("/opt/sdk/lib.so"), Path.of("/srv/data/x"), HOME.resolve("vault/.npmrc"));
    private static final Predicate<Path> IS_DIR = DIRS::contains;
    private static final Predicate<Path> EXISTS = p -> DIRS.contains(p) || FILES.contains(p);

    private static final Ruleset RULES = Ruleset.of(List.of(
            new Rule(Path.of("/usr"), AccessMode.RX, "core:system"),
            new Rule(HOME.resolve(".m2"), AccessMode.R, "workspace:sandbox.allow[0]"),
            new Rule(Path.of("/srv"), AccessMode.R, "spell:data")));

    private static DenialAdvice classify(Access op, String path) {
        return DenialAdvice.classify(op, Path.of(path), HOME, RULES, EXISTS, IS_DIR);
    }

    @ParameterizedTest(name = "{0} {1}: {2}")
    @CsvSource(delimiter = '|', textBlock = """
            WRITE | /proc/self/coredump_filter                | benign
            WRITE | /proc/4242/coredump_filter                | benign
            WRITE | /tmp/hsperfdata_root                      | benign
            WRITE | /tmp/hsperfdata_root/4242                 | benign
            READ  | /home/u/.ssh/id_rsa                       | attack
            READ  | /home/u/.aws/credentials                  | attack
            READ  | /home/u/.gnupg/pubring.kbx                | attack
            READ  | /home/u/.config/gh/hosts.yml              | attack
            READ  | /home/u/.git-credentials                  | attack
            READ  | /home/u/.npmrc                            | attack
            READ  | /home/u/.pypirc                           | attack
            READ  | /home/u/.docker/config.json               | attack
            READ  | /home/u/.netrc                            | attack
            READ  | /home/u/.cargo/credentials.toml           | attack
            READ  | /home/u/.m2/settings.xml                  | attack
            READ  | /home/u/.m2/settings-security.xml         | attack
            READ  | /home/u/.gradle/gradle.properties         | attack
            WRITE | /home/u/.bashrc                           | attack
            WRITE | /home/u/.profile                          | attack
            WRITE | /home/u/.zshrc                            | attack
            WRITE | /home/u/.gitconfig                        | attack
            READ  | /home/u                                   | attack
            READ  | /home                                     | attack
            READ  | /                                         | attack
            WRITE | /etc/cron.d/job                           | attack
            WRITE | /etc                                      | attack
            WRITE | /proc/20823/oom_score_adj                 | attack
            READ  | /sys/kernel/debug/x                       | attack
            WRITE | /dev/shm/x                                | attack
            READ  | /home/u/.cache/magus-run/server.sock.token | attack
            WRITE | /home/u/.local/state/magus/gitconfig.cache | attack
            READ  | /run/user/1000/magus/server.sock.token    | attack
            READ  | /tmp/magus-1000/server.sock.token         | attack
            EXEC  | /tmp/magus-demo-1/home/Downloads/miner     | hint
            WRITE | /home/u/.local/bin/git                    | attack
            WRITE | /home/u/.docker/cli-plugins/docker-x      | attack
            READ  | /home/u/.local/bin/tool                   | hint
            READ  | /home/u/.gitconfig                        | hint
            WRITE | /home/u/.cache/tool/ab/cd                 | hint
            WRITE | /home/u/.m2/repository/org/apache/commons | hint
            EXEC  | /opt/sdk/lib.so                           | hint
            WRITE | /home/u/.config/newtool/x                 | hint
            WRITE | /home/u/.cargo/env                        | attack
            WRITE | /home/u/.cargo/bin/cargo                  | attack
            WRITE | /home/u/.cargo/config.toml                | attack
            WRITE | /home/u/.config/go/env                    | attack
            EXEC  | /home/u/.cargo/bin/cargo                  | hint
            READ  | /home/u/.cargo/env                        | hint
            """)
    void each_access_has_one_class(Access op, String path, String label) {
        assertThat(classify(op, path).label()).isEqualTo(label);
    }

    @Test
    void a_missing_file_is_declared_as_the_nearest_existing_directory() {
        DenialAdvice.Hint h = (DenialAdvice.Hint) classify(Access.WRITE, "/home/u/.cache/tool/ab/cd");
        assertThat(h.path()).isEqualTo(HOME.resolve(".cache/tool"));
        assertThat(h.mode()).isEqualTo(AccessMode.RW);
        assertThat(h.missing()).isFalse();
        assertThat(h.upgrades()).isEmpty();
    }

    @Test
    void inside_a_tool_cache_the_hint_is_its_root_not_one_artifact() {
        // Without the ~/.m2 ro rule: a read deep in Maven's repository names the repository.
        DenialAdvice.Hint h = (DenialAdvice.Hint) DenialAdvice.classify(Access.READ,
                HOME.resolve(".m2/repository/org/apache/commons/1.0/c.jar"), HOME, Ruleset.of(List.of()), EXISTS, IS_DIR);
        assertThat(h.path()).isEqualTo(HOME.resolve(".m2/repository"));
        assertThat(h.mode()).isEqualTo(AccessMode.R);
    }

    @Test
    void a_directory_holding_a_credential_store_is_never_suggested() {
        // ~/.config exists but holds ~/.config/gh: the hint steps down to the tool's own directory.
        DenialAdvice.Hint h = (DenialAdvice.Hint) classify(Access.WRITE, "/home/u/.config/newtool/x");
        assertThat(h.path()).isEqualTo(HOME.resolve(".config/newtool"));
        assertThat(h.missing()).as("so the YAML says to create it first").isTrue();
        assertThat(AllowHint.yaml(h, HOME)).contains("# ~/.config/newtool does not exist yet: create it first");
        // A file right under home is declared as itself, never as home.
        assertThat(((DenialAdvice.Hint) classify(Access.READ, "/home/u/.gitconfig")).path())
                .isEqualTo(HOME.resolve(".gitconfig"));
        // Nor is a directory holding a credential store (~/.ssh here) for a file beside it.
        assertThat(((DenialAdvice.Hint) classify(Access.WRITE, "/home/u/newfile")).path())
                .isEqualTo(HOME.resolve("newfile"));
    }

    @Test
    void a_toolchain_a_spell_grants_read_and_run_is_never_made_writable() {
        Ruleset pyenv = Ruleset.of(List.of(new Rule(HOME.resolve(".pyenv"), AccessMode.RX, "spell:python/pyenv"),
                new Rule(HOME.resolve(".m2"), AccessMode.R, "spell:java/m2")));
        Path pth = HOME.resolve(".pyenv/versions/3.11/lib/python3.11/site-packages/evil.pth");
        assertThat(DenialAdvice.classify(Access.WRITE, pth, HOME, pyenv, EXISTS, IS_DIR))
                .isInstanceOfSatisfying(DenialAdvice.AttackLike.class, a -> assertThat(a.why())
                        .contains("~/.pyenv is a toolchain spell:python/pyenv grants read-and-run only"));
        // Reading or running it is what the spell grants; a read-only cache is still widened.
        assertThat(DenialAdvice.classify(Access.READ, pth, HOME, pyenv, EXISTS, IS_DIR).label()).isEqualTo("hint");
        assertThat(DenialAdvice.classify(Access.WRITE, HOME.resolve(".m2/repository/org/x"), HOME, pyenv, EXISTS, IS_DIR)
                .label()).isEqualTo("hint");
    }

    @Test
    void a_write_hint_never_covers_what_a_run_could_plant_there() {
        // A fresh home: ~/.cargo, ~/.config and ~/.cache hold nothing sensitive yet, but a write
        // grant on one of them would let a run create ~/.cargo/env (sourced at login),
        // ~/.config/pip/pip.conf, ~/.config/fish/config.fish or the server's socket dir.
        Set<Path> dirs = Set.of(Path.of("/"), Path.of("/home"), HOME, HOME.resolve(".cargo"), HOME.resolve(".config"),
                HOME.resolve(".cache"), HOME.resolve(".config/tool"));
        Predicate<Path> exists = dirs::contains;
        Ruleset none = Ruleset.of(List.of());
        DenialAdvice cargo = DenialAdvice.classify(Access.WRITE, HOME.resolve(".cargo/newdir/x"), HOME, none, exists,
                dirs::contains);
        assertThat(cargo).isInstanceOfSatisfying(DenialAdvice.Hint.class, h -> {
            assertThat(h.path()).isEqualTo(HOME.resolve(".cargo/newdir"));
            assertThat(h.missing()).isTrue();
        });
        DenialAdvice config = DenialAdvice.classify(Access.WRITE, HOME.resolve(".config/tool/x"), HOME, none, exists,
                dirs::contains);
        assertThat(((DenialAdvice.Hint) config).path()).isEqualTo(HOME.resolve(".config/tool"));
        DenialAdvice cache = DenialAdvice.classify(Access.WRITE, HOME.resolve(".cache/newtool/x"), HOME, none, exists,
                dirs::contains);
        assertThat(cache).isInstanceOfSatisfying(DenialAdvice.Hint.class, h -> {
            assertThat(h.path()).as("not ~/.cache, which holds magus's socket fallback").isEqualTo(HOME.resolve(".cache/newtool"));
            assertThat(AllowHint.yaml(h, HOME)).contains("# ~/.cache/newtool does not exist yet: create it first");
        });
        // Nor a read grant that would read gh's token once `gh auth login` writes it.
        DenialAdvice read = DenialAdvice.classify(Access.READ, HOME.resolve(".config/go/env"), HOME, none, exists,
                dirs::contains);
        assertThat(read).isInstanceOfSatisfying(DenialAdvice.Hint.class, h -> {
            assertThat(h.path()).isEqualTo(HOME.resolve(".config/go"));
            assertThat(h.missing()).isTrue();
        });
    }

    @Test
    void the_nearest_declared_rule_is_widened_unless_it_holds_a_credential_store() {
        DenialAdvice.Hint srv = (DenialAdvice.Hint) classify(Access.WRITE, "/srv/data/x");
        assertThat(srv.path()).isEqualTo(Path.of("/srv"));
        assertThat(srv.mode()).isEqualTo(AccessMode.RW);
        assertThat(srv.upgrades()).map(Rule::path).contains(Path.of("/srv"));
        assertThat(AllowHint.yaml(srv, HOME)).contains("# widens /srv ro (spell:data) to rw");
        // ~/.m2 ro holds settings.xml here: its repository is widened instead, not one package of it.
        DenialAdvice.Hint m2 = (DenialAdvice.Hint) classify(Access.WRITE, "/home/u/.m2/repository/org/apache/commons");
        assertThat(m2.path()).isEqualTo(HOME.resolve(".m2/repository"));
        assertThat(m2.mode()).isEqualTo(AccessMode.RW);
        // Nor without settings.xml on the host: a write grant on ~/.m2 would let a run plant one.
        DenialAdvice whole = DenialAdvice.classify(Access.WRITE, HOME.resolve(".m2/repository/org/apache/commons"),
                HOME, RULES, p -> EXISTS.test(p) && !p.equals(HOME.resolve(".m2/settings.xml")), IS_DIR);
        assertThat(((DenialAdvice.Hint) whole).path()).isEqualTo(HOME.resolve(".m2/repository"));
        // A writable rule is not made executable: that is how a dropped binary runs.
        DenialAdvice.Hint exec = (DenialAdvice.Hint) DenialAdvice.classify(Access.EXEC, Path.of("/srv/data/x"), HOME,
                Ruleset.of(List.of(new Rule(Path.of("/srv"), AccessMode.RW, "spell:data"))), EXISTS, IS_DIR);
        assertThat(exec.upgrades()).isEmpty();
        assertThat(exec.mode()).isEqualTo(AccessMode.RX);
        // A core rule is never widened: a write under /usr gets no "/usr rwx".
        DenialAdvice usr = classify(Access.WRITE, "/usr/local/lib/x");
        assertThat(usr).isInstanceOfSatisfying(DenialAdvice.Hint.class,
                h -> assertThat(h.upgrades()).isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            /home/u/.cache/tool
            /home/u/.m2
            /opt/my tool: x
            /srv/"quoted"
            /srv/-dash
            """)
    void the_yaml_always_parses_back_to_the_same_path(String path) {
        Path p = Path.of(path);
        String yaml = AllowHint.yaml(new DenialAdvice.Hint(p, AccessMode.RW, Optional.empty(), false), HOME);
        Object doc = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
        @SuppressWarnings("unchecked")
        var allow = (List<java.util.Map<String, Object>>) ((java.util.Map<String, Object>) ((java.util.Map<String, Object>) doc)
                .get("sandbox")).get("allow");
        assertThat(allow.get(0).get("path")).isEqualTo(Locations.display(p, HOME));
        assertThat(allow.get(0).get("mode")).isEqualTo("rw");
    }

    @Test
    void home_itself_is_never_null_in_the_yaml() {
        String yaml = AllowHint.yaml(new DenialAdvice.Hint(HOME.resolve("x"), AccessMode.R, Optional.empty(), false), HOME);
        assertThat(yaml).contains("path: \"~/x\"");
        assertThat(AllowHint.scalar("~")).isEqualTo("\"~\"");
    }
}
