package dev.magus.workspace.spell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.env.shim.ShimHints;
import dev.magus.env.shim.ShimManager;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.SandboxException;
import dev.magus.policy.decl.DeclLayer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpellCatalogTest {
    private static final SpellHost HOST = new SpellHost(Map.of(), Path.of("/home/dev"), false);
    private static final Function<Path, String> READ = p -> {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    };

    @TempDir
    Path ws;

    private void spellFile(String name, String text) throws IOException {
        Files.createDirectories(ws.resolve(SpellCatalog.DIR));
        Files.writeString(ws.resolve(SpellCatalog.DIR).resolve(name + ".yaml"), text);
    }

    private SpellCatalog load() {
        return SpellCatalog.load(ws, HOST, READ, getClass().getClassLoader(), new SpellParses());
    }

    @Test
    void aYamlSpellLoadsAtItsOwnLayer() throws IOException {
        spellFile("bazel", "sandbox:\n  allow:\n    - {name: cache, env: BAZEL_CACHE, base: xdgCache, path: bazel, mode: rw}\n"
                + "  env:\n    passthrough: [BAZEL_CACHE]\nregistryHosts: [bcr.bazel.build]\n");
        SpellCatalog c = load();
        assertThat(c.names()).startsWith("node").contains("bazel", "fixture");
        Spell s = c.spell("bazel");
        assertThat(s.sandbox().layer()).isEqualTo(DeclLayer.spell("bazel"));
        assertThat(s.sandbox().allow()).singleElement().satisfies(a -> assertThat(a.origin()).isEqualTo("spell:bazel/cache"));
        assertThat(s.passthrough().permits("BAZEL_CACHE")).isTrue();
        assertThat(s.registryHosts()).containsExactly("bcr.bazel.build");
        assertThat(s.source()).isEqualTo(".magus/spells/bazel.yaml");
    }

    @Test
    void aYamlSpellThatCannotBeHonoredIsRefusedWhenItLoadsNamingSpellFileLineAndColumn() throws IOException {
        spellFile("bad", "sandbox:\n  allow:\n    - path: ~/.bad\n      mode: rwxx\n");
        SpellCatalog c = load();
        assertThat(c.knows("bad")).isTrue();
        assertThatThrownBy(() -> c.spell("bad")).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.MGS2004);
            assertThat(e.diagnostic().message()).startsWith("spell bad: ").contains("rwxx");
            assertThat(e.diagnostic().source()).isEqualTo(".magus/spells/bad.yaml:4:13 sandbox.allow[0].mode");
        });
        spellFile("dollar", "sandbox:\n  allow: [{path: $HOME/x}]\n");
        assertThatThrownBy(() -> load().spell("dollar")).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().message()).startsWith("spell dollar: ").contains("only magus.yaml may write"));
        spellFile("keys", "sandbox:\n  mode: required\n");
        assertThatThrownBy(() -> load().spell("keys")).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().source()).isEqualTo(".magus/spells/keys.yaml:2:3 sandbox.mode"));
        spellFile("hosts", "registryHosts: [\"https://x\"]\n");
        assertThatThrownBy(() -> load().spell("hosts")).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().message()).contains("not a host name"));
    }

    @Test
    void aBuiltinNameCannotBeShadowed() throws IOException {
        spellFile("node", "sandbox: {allow: [{path: ~/.npmrc}]}\n");
        assertThatThrownBy(this::load).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.MGS2004);
            assertThat(e.diagnostic().message()).contains("shadow the built-in spell node");
            assertThat(e.diagnostic().source()).isEqualTo(".magus/spells/node.yaml");
        });
    }

    @Test
    void aFileThatNamesNoSpellIsRefused() throws IOException {
        spellFile("Bad Name", "{}\n");
        assertThatThrownBy(this::load).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().message()).contains("does not name a spell"));
    }

    @Test
    void aProviderOnTheClassPathAddsItsSpells() {
        SpellCatalog c = load();
        Spell s = c.spell("fixture");
        assertThat(s.source()).isEqualTo(FixtureSpellProvider.class.getName());
        assertThat(c.managers(List.of())).extracting(m -> m.name()).contains("pyenv", "rbenv");
    }

    @Test
    void aProviderShadowingABuiltinOrAYamlSpellIsRefused(@TempDir Path services) throws IOException {
        Path file = services.resolve("META-INF/services/" + SpellProvider.class.getName());
        Files.createDirectories(file.getParent());
        Files.writeString(file, ShadowingProvider.class.getName() + "\n");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {services.toUri().toURL()}, getClass().getClassLoader())) {
            assertThatThrownBy(() -> SpellCatalog.load(ws, HOST, READ, loader, new SpellParses())).isInstanceOfSatisfying(SandboxException.class,
                    e -> assertThat(e.diagnostic().message()).contains("would shadow the built-in spell java"));
        }
        spellFile("fixture", "{}\n");
        assertThatThrownBy(this::load).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().message()).contains("spell fixture is defined twice"));
    }

    private static final String JENV = "sandbox:\n  env:\n    passthrough: [JENV_VERSION, JENV_ROOT]\n"
            + "versionManagers:\n  - name: jenv\n    shims: [.jenv/shims]\n    root: JENV_ROOT\n"
            + "    selectors: [JENV_VERSION, JENV_ROOT]\n";

    @Test
    void aYamlSpellsVersionManagerIsCoveredByMgs2006LikeTheBuiltins() throws IOException {
        spellFile("jenv", JENV);
        SpellCatalog c = load();
        assertThat(c.spell("jenv").managers()).singleElement().satisfies(m -> {
            assertThat(m.name()).isEqualTo("jenv");
            assertThat(m.markers()).containsExactly("/.jenv/shims");
            assertThat(m.root()).contains("JENV_ROOT");
            assertThat(m.underRoot()).isEqualTo("shims");
            assertThat(m.spell()).contains("jenv");
        });
        // Read by managers() itself: no stage has to have loaded the spell first.
        List<ShimManager> managers = load().managers(List.of("jenv"));
        // A spell file bound by nothing (a cloned repository's) drives no hint.
        assertThat(load().managers(List.of())).extracting(ShimManager::name).doesNotContain("jenv");
        assertThat(managers).extracting(ShimManager::name).startsWith("mise", "asdf", "pyenv", "nvm", "sdkman")
                .contains("rbenv", "jenv").doesNotHaveDuplicates();

        Map<String, String> host = Map.of("PATH", "/home/dev/.jenv/shims:/usr/bin", "JENV_VERSION", "17");
        Map<String, String> child = Map.of("PATH", "/home/dev/.jenv/shims:/usr/bin");
        List<Diagnostic> hints = ShimHints.of(host, child, managers);
        assertThat(hints).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2006);
            assertThat(d.subject()).isEqualTo("JENV_VERSION");
            assertThat(d.message()).contains("jenv shims are on PATH").contains("bind the spell jenv");
        });
        // Under the directory its root variable names, wherever that is.
        Map<String, String> custom = Map.of("PATH", "/opt/j/shims:/usr/bin", "JENV_ROOT", "/opt/j", "JENV_VERSION", "17");
        assertThat(ShimHints.of(custom, Map.of("PATH", "/opt/j/shims:/usr/bin"), managers)).extracting(Diagnostic::subject)
                .containsExactly("JENV_VERSION");
        // Kept (as binding the spell keeps it): no hint.
        assertThat(ShimHints.of(host, host, managers)).isEmpty();
        // Without the spell file, nothing knows jenv.
        assertThat(ShimHints.of(host, child, SpellCatalog.builtins(HOST).managers(List.of()))).isEmpty();
    }

    @Test
    void aVersionManagerThatCannotBeHonouredIsRefusedWhenTheSpellLoadsNamingIt() throws IOException {
        Map<String, String[]> bad = new java.util.LinkedHashMap<>();
        bad.put("versionManagers: [{name: jenv, selectors: [JENV_VERSION]}]\n",
                new String[] {"could never be recognised on PATH", ":2:19 versionManagers[0].shims"});
        bad.put("versionManagers: [{name: jenv, shims: [.jenv/shims]}]\n",
                new String[] {"needs selectors", ":2:19 versionManagers[0].selectors"});
        bad.put("versionManagers: [{name: jenv, shims: [.jenv/shims], selectors: []}]\n",
                new String[] {"needs selectors", "versionManagers[0].selectors"});
        bad.put("versionManagers: [{name: jenv, shims: [\"/\"], selectors: [JENV_VERSION]}]\n",
                new String[] {"every PATH entry would be its shim dir", "versionManagers[0].shims[0]"});
        bad.put("versionManagers: [{name: jenv, shims: [\"a:b\"], selectors: [JENV_VERSION]}]\n",
                new String[] {"PATH separator", "versionManagers[0].shims[0]"});
        bad.put("versionManagers: [{name: jenv, shims: [\"~/.jenv/shims\"], selectors: [JENV_VERSION]}]\n",
                new String[] {"names home or a variable", "versionManagers[0].shims[0]"});
        bad.put("versionManagers: [{name: jenv, shims: [../shims], selectors: [JENV_VERSION]}]\n",
                new String[] {"'.' or '..'", "versionManagers[0].shims[0]"});
        bad.put("versionManagers: [{name: jenv, root: \"$JENV_ROOT\", selectors: [JENV_VERSION]}]\n",
                new String[] {"names the variable holding", "versionManagers[0].root"});
        bad.put("versionManagers: [{name: jenv, shims: [.jenv/shims], rootShims: bin, selectors: [JENV_VERSION]}]\n",
                new String[] {"has no root", "versionManagers[0].rootShims"});
        bad.put("versionManagers: [{name: jenv, shims: [.jenv/shims], selectors: [\"J*\"]}]\n",
                new String[] {"not a variable name or a PREFIX_* pattern", "versionManagers[0].selectors[0]"});
        bad.put("versionManagers: [{name: jenv, shims: [.jenv/shims], selectors: [JENV_VERSION, JENV_HOME]}]\n",
                new String[] {"reads JENV_HOME, which spell jenv does not pass through", "versionManagers[0].selectors[1]"});
        bad.put("versionManagers: [{name: pyenv, shims: [.pyenv2/shims], selectors: [JENV_VERSION]}]\n",
                new String[] {"already known (by the built-in spell python)", "versionManagers[0].name"});
        bad.put("versionManagers: [{name: Jenv, shims: [.jenv/shims], selectors: [JENV_VERSION]}]\n",
                new String[] {"is not one", "versionManagers[0].name"});
        bad.put("versionManagers: [{name: jenv, shim: [.jenv/shims], selectors: [JENV_VERSION]}]\n",
                new String[] {"unknown key 'shim'", "versionManagers[0].shim"});
        bad.put("versionManagers: [{name: jenv, shims: [.jenv/shims], selectors: [JENV_VERSION]},"
                + " {name: jenv, shims: [.j/shims], selectors: [JENV_VERSION]}]\n",
                new String[] {"declared twice", "versionManagers[1].name"});
        bad.put("versionManagers: {name: jenv}\n", new String[] {"must be a list", "versionManagers"});
        bad.put("versionManagers: [{name: jenv, shims: [bin], selectors: [JENV_VERSION]}]\n",
                new String[] {"would match the system directory /usr/bin", "versionManagers[0].shims[0]"});
        bad.put("versionManagers: [{name: jenv, shims: [local/bin], selectors: [JENV_VERSION]}]\n",
                new String[] {"would match the system directory /usr/local/bin", "versionManagers[0].shims[0]"});
        bad.put("versionManagers: [{name: jenv, shims: [.jenv/shims], selectors: [\"AWS_*\"]}]\n",
                new String[] {"credential-looking", "versionManagers[0].selectors[0]"});
        bad.put("versionManagers: [{name: jenv, shims: [.jenv/shims], selectors: [\"GH_*\"]}]\n",
                new String[] {"credential-looking", "versionManagers[0].selectors[0]"});
        bad.put("versionManagers: [{name: jenv, shims: [.jenv/shims], selectors: [GITHUB_TOKEN]}]\n",
                new String[] {"credential-looking", "versionManagers[0].selectors[0]"});
        bad.put("versionManagers: [{name: jenv, shims: [.jenv/shims], selectors: [JENV_API_KEY]}]\n",
                new String[] {"credential-looking", "versionManagers[0].selectors[0]"});
        bad.put("versionManagers: [{name: jenv, shims: [.jenv/shims], selectors: [\"JENV_*\"]}]\n",
                new String[] {"a pattern selector must be in the spell's own", "versionManagers[0].selectors[0]"});
        for (Map.Entry<String, String[]> e : bad.entrySet()) {
            spellFile("jenv", "sandbox: {env: {passthrough: [JENV_VERSION, JENV_ROOT]}}\n" + e.getKey());
            SpellCatalog c = load();
            assertThatThrownBy(() -> c.spell("jenv")).as(e.getKey()).isInstanceOfSatisfying(SandboxException.class, x -> {
                assertThat(x.code()).isEqualTo(Code.MGS2004);
                assertThat(x.diagnostic().message()).as(e.getKey()).startsWith("spell jenv: ").contains(e.getValue()[0]);
                assertThat(x.diagnostic().source()).as(e.getKey()).startsWith(".magus/spells/jenv.yaml:").contains(e.getValue()[1]);
            });
            // A hint left out never widens a run: managers() skips what the binding refuses.
            assertThat(c.managers(List.of("jenv"))).extracting(ShimManager::name).doesNotContain("jenv").contains("pyenv");
        }
    }

    @Test
    void anUnknownNameIsRefused() {
        assertThatThrownBy(() -> SpellCatalog.builtins(HOST).spell("cobol")).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().message()).contains("no spell is named 'cobol'"));
    }

    /** Registered through the test class path's META-INF/services only by the URL loader above. */
    public static final class ShadowingProvider implements SpellProvider {
        @Override
        public List<Spell> spells(SpellHost host) {
            return List.of(new Spell("java", dev.magus.policy.decl.SandboxDecl.empty(DeclLayer.spell("java")), List.of(),
                    List.of(), "x"));
        }
    }
}
