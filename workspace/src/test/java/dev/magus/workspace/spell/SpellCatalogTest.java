package dev.magus.workspace.spell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
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
        return SpellCatalog.load(ws, HOST, READ, getClass().getClassLoader());
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
        assertThat(c.managers()).extracting(m -> m.name()).contains("pyenv", "rbenv");
    }

    @Test
    void aProviderShadowingABuiltinOrAYamlSpellIsRefused(@TempDir Path services) throws IOException {
        Path file = services.resolve("META-INF/services/" + SpellProvider.class.getName());
        Files.createDirectories(file.getParent());
        Files.writeString(file, ShadowingProvider.class.getName() + "\n");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {services.toUri().toURL()}, getClass().getClassLoader())) {
            assertThatThrownBy(() -> SpellCatalog.load(ws, HOST, READ, loader)).isInstanceOfSatisfying(SandboxException.class,
                    e -> assertThat(e.diagnostic().message()).contains("would shadow the built-in spell java"));
        }
        spellFile("fixture", "{}\n");
        assertThatThrownBy(this::load).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().message()).contains("spell fixture is defined twice"));
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
