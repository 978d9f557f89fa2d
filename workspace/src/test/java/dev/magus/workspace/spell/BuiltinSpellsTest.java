package dev.magus.workspace.spell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.HostFacts;
import dev.magus.policy.Location;
import dev.magus.policy.Locations;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.fs.Access;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BuiltinSpellsTest {
    private static final Path HOME = Path.of("/home/dev");
    private static final Path WS = Path.of("/home/dev/ws");
    /** The credential files beside the caches the spells grant; none may be reachable through a spell. */
    static final List<String> CREDENTIALS = List.of(".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".netrc",
            ".cargo/credentials", ".cargo/credentials.toml", ".m2/settings.xml", ".m2/settings-security.xml",
            ".gradle/gradle.properties", ".gradle/init.d/auth.gradle", ".docker/config.json", ".config/pip/pip.conf",
            ".config/pypoetry/auth.toml", ".ssh/id_ed25519", ".aws/credentials", ".config/gh/hosts.yml", ".git-credentials");

    private static List<Path> locations(Spell s, Map<String, String> env) {
        HostFacts host = HostFacts.linux(env, HOME, List.of(), Path.of("/tmp/magus-run-1"));
        List<Path> out = new ArrayList<>();
        for (SandboxAllow a : s.sandbox().allow()) {
            if (Locations.locate(a, host, WS) instanceof Location.At at) {
                out.add(at.path().normalize());
            }
        }
        return out;
    }

    private static Optional<String> grant(Spell s, Map<String, String> env, String path) {
        HostFacts host = HostFacts.linux(env, HOME, List.of(), Path.of("/tmp/magus-run-1"));
        for (SandboxAllow a : s.sandbox().allow()) {
            if (Locations.locate(a, host, WS) instanceof Location.At at && at.path().normalize().equals(Path.of(path))) {
                return Optional.of(a.mode().letters());
            }
        }
        return Optional.empty();
    }

    @Test
    void everyBuiltinDeclaresAtItsOwnLayerAndReachesNoCredentialFile() {
        for (Map<String, String> env : List.of(Map.<String, String>of(), Map.of("CARGO_HOME", "/home/dev/.cargo",
                "GRADLE_USER_HOME", "/home/dev/.gradle", "XDG_CACHE_HOME", "/home/dev/.cache", "PYENV_ROOT", "/home/dev/.pyenv"))) {
            List<Spell> all = BuiltinSpells.all(new SpellHost(env, HOME, false));
            assertThat(all).extracting(Spell::name).containsExactlyElementsOf(BuiltinSpells.NAMES);
            for (Spell s : all) {
                assertThat(s.sandbox().layer()).isEqualTo(DeclLayer.spell(s.name()));
                assertThat(s.sandbox().allow()).allSatisfy(a -> assertThat(a.origin()).startsWith("spell:" + s.name() + "/"));
                for (Path granted : locations(s, env)) {
                    assertThat(granted).as(s.name()).isNotEqualTo(HOME);
                    for (String c : CREDENTIALS) {
                        assertThat(HOME.resolve(c).startsWith(granted)).as(s.name() + " grants " + granted + " holding ~/" + c).isFalse();
                    }
                }
            }
        }
    }

    @Test
    void grantsFollowTheToolsOwnVariablesAndDefaults() {
        SpellHost plain = new SpellHost(Map.of(), HOME, false);
        assertThat(grant(BuiltinSpells.get("node", plain).orElseThrow(), Map.of(), "/home/dev/.npm")).contains("rw-");
        assertThat(grant(Toolchains.node(plain), Map.of("npm_config_cache", "/var/cache/npm"), "/var/cache/npm")).contains("rw-");
        Spell rust = Toolchains.rust(plain);
        assertThat(grant(rust, Map.of(), "/home/dev/.cargo/registry")).contains("rw-");
        assertThat(grant(rust, Map.of(), "/home/dev/.cargo/git")).contains("rw-");
        assertThat(grant(rust, Map.of(), "/home/dev/.cargo/bin")).contains("r-x");
        assertThat(grant(rust, Map.of(), "/home/dev/.rustup")).contains("r-x");
        assertThat(grant(rust, Map.of(), "/home/dev/.cargo")).isEmpty();
        Spell custom = Toolchains.rust(new SpellHost(Map.of("CARGO_HOME", "/opt/cargo/"), HOME, false));
        assertThat(grant(custom, Map.of("CARGO_HOME", "/opt/cargo/"), "/opt/cargo/registry")).contains("rw-");
        assertThat(grant(custom, Map.of("CARGO_HOME", "/opt/cargo/"), "/opt/cargo")).isEmpty();
        Spell java = Toolchains.java(plain);
        assertThat(grant(java, Map.of(), "/home/dev/.m2/repository")).contains("rw-");
        assertThat(grant(java, Map.of(), "/home/dev/.m2")).isEmpty();
        assertThat(grant(java, Map.of(), "/home/dev/.gradle/caches")).contains("rw-");
        assertThat(grant(java, Map.of(), "/home/dev/.gradle/wrapper")).contains("rwx");
        assertThat(grant(Toolchains.java(new SpellHost(Map.of("JAVA_HOME", "/opt/jdk"), HOME, false)),
                Map.of("JAVA_HOME", "/opt/jdk"), "/opt/jdk")).contains("r-x");
        Spell go = Toolchains.go(new SpellHost(Map.of("GOPATH", "/srv/go:/other"), HOME, false));
        assertThat(grant(go, Map.of("GOPATH", "/srv/go:/other"), "/srv/go/pkg/mod")).contains("rw-");
        assertThat(grant(go, Map.of(), "/home/dev/.cache/go-build")).contains("rwx");
        assertThat(grant(go, Map.of("GOCACHE", "/c/go"), "/c/go")).contains("rwx");
        assertThat(grant(Managers.python(plain), Map.of(), "/home/dev/.pyenv")).contains("r-x");
        assertThat(grant(Managers.python(plain), Map.of(), "/home/dev/.cache/pip")).contains("rw-");
        assertThat(Toolchains.node(plain).passthrough().permits("npm_config_cache")).isTrue();
        assertThat(Toolchains.node(plain).passthrough().permits("NPM_TOKEN")).isFalse();
        assertThat(Toolchains.go(plain).passthrough().permits("GOFLAGS")).isTrue();
        assertThat(Toolchains.go(plain).passthrough().permits("GOOGLE_APPLICATION_CREDENTIALS")).isFalse();
        assertThat(Toolchains.rust(plain).passthrough().permits("CARGO_REGISTRY_TOKEN")).isFalse();
        assertThat(Toolchains.node(plain).registryHosts()).contains("registry.npmjs.org");
    }

    /** The locations of the entries a spell creates before a run (a fresh home's caches). */
    private static List<Path> created(Spell s, Map<String, String> env) {
        HostFacts host = HostFacts.linux(env, HOME, List.of(), Path.of("/tmp/magus-run-1"));
        List<Path> out = new ArrayList<>();
        for (SandboxAllow a : s.sandbox().allow()) {
            if (a.name().filter(s.creates()::contains).isPresent() && Locations.locate(a, host, WS) instanceof Location.At at) {
                out.add(at.path().normalize());
            }
        }
        return out;
    }

    @Test
    void gradlesCachesAndWrapperAreCreatedLikeEveryCacheAndGradlePropertiesNever() {
        assertThat(created(Toolchains.java(new SpellHost(Map.of(), HOME, false)), Map.of())).containsExactlyInAnyOrder(
                Path.of("/home/dev/.m2/repository"), Path.of("/home/dev/.gradle/caches"), Path.of("/home/dev/.gradle/wrapper"));
        Map<String, String> custom = Map.of("GRADLE_USER_HOME", "/srv/gradle");
        assertThat(created(Toolchains.java(new SpellHost(custom, HOME, false)), custom))
                .contains(Path.of("/srv/gradle/caches"), Path.of("/srv/gradle/wrapper"))
                .noneMatch(p -> p.startsWith(Path.of("/home/dev/.gradle")));
        for (Spell s : BuiltinSpells.all(new SpellHost(Map.of(), HOME, false))) {
            for (Path made : created(s, Map.of())) {
                assertThat(made).as(s.name()).isNotEqualTo(HOME);
                for (String c : CREDENTIALS) {
                    // Neither the credential file itself nor a directory holding it is ever made.
                    assertThat(HOME.resolve(c).startsWith(made)).as(s.name() + " creates " + made + " holding ~/" + c).isFalse();
                }
            }
        }
    }

    @Test
    void aToolHomeThatCannotBeALocationGrantsNothingAndSaysSo() {
        for (String bad : List.of("relative/cargo", "/home/dev", "/home")) {
            Map<String, String> env = Map.of("CARGO_HOME", bad);
            Spell rust = Toolchains.rust(new SpellHost(env, HOME, false));
            HostFacts host = HostFacts.linux(env, HOME, List.of(), Path.of("/tmp/magus-run-1"));
            List<SandboxAllow> cargo = rust.sandbox().allow().stream().filter(a -> a.env().equals(Optional.of("CARGO_HOME"))).toList();
            assertThat(cargo).as(bad).singleElement()
                    .satisfies(a -> assertThat(Locations.locate(a, host, WS)).isInstanceOf(Location.GrantsNothing.class));
            assertThat(locations(rust, env)).noneMatch(p -> p.startsWith(Path.of("/home/dev/.cargo")) || p.equals(Path.of(bad)));
        }
    }

    @Test
    void versionManagersAreKnownToTheirSpells() {
        SpellHost plain = new SpellHost(Map.of(), HOME, false);
        assertThat(Managers.python(plain).managers()).extracting(m -> m.name()).containsExactly("pyenv");
        assertThat(Managers.nvm(plain).managers()).extracting(m -> m.name()).containsExactly("nvm");
        assertThat(Managers.mise(plain).passthrough().permits("MISE_GITHUB_TOKEN")).isFalse();
        assertThat(Managers.python(plain).sandbox().allow()).noneMatch(a -> a.mode().has(Access.WRITE)
                && a.name().equals(Optional.of("pyenv")));
    }
}
