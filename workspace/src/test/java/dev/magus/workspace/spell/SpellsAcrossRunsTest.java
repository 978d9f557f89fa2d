package dev.magus.workspace.spell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.policy.decl.SandboxAllow;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server loads the catalog once per run and keeps each YAML spell's parse and each class
 * loader's providers: every change of a spell file is seen by the next load, and a
 * spell that no longer parses is refused, never answered from an earlier parse.
 */
class SpellsAcrossRunsTest {
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
    /** The parses kept from one load to the next, as a server keeps them. */
    private final SpellParses parses = new SpellParses();

    private Path file() throws IOException {
        return Files.createDirectories(ws.resolve(SpellCatalog.DIR)).resolve("cachetool.yaml");
    }

    private String grantedPath() {
        Spell s = SpellCatalog.load(ws, HOST, READ, getClass().getClassLoader(), parses).spell("cachetool");
        return s.sandbox().allow().stream().map(SandboxAllow::path).findFirst().orElseThrow().orElseThrow();
    }

    @Test
    void aRewriteOfTheSameSizeWithItsMtimePutBackIsSeenByTheNextLoad() throws IOException {
        Path f = file();
        Files.writeString(f, "sandbox:\n  allow: [{path: ~/.aaaa, mode: ro}]\n");
        FileTime mtime = Files.getLastModifiedTime(f);
        assertThat(grantedPath()).isEqualTo("~/.aaaa");
        assertThat(grantedPath()).isEqualTo("~/.aaaa");
        Files.writeString(f, "sandbox:\n  allow: [{path: ~/.bbbb, mode: ro}]\n");
        Files.setLastModifiedTime(f, mtime);
        assertThat(grantedPath()).isEqualTo("~/.bbbb");
    }

    @Test
    void aFileReplacedByRenameIsSeenByTheNextLoad() throws IOException {
        Path f = file();
        Files.writeString(f, "sandbox:\n  allow: [{path: ~/.cccc, mode: ro}]\n");
        assertThat(grantedPath()).isEqualTo("~/.cccc");
        Path tmp = Files.writeString(f.resolveSibling("new.tmp"), "sandbox:\n  allow: [{path: ~/.dddd, mode: rw}]\n");
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThat(grantedPath()).isEqualTo("~/.dddd");
    }

    @Test
    void aSpellThatStopsParsingIsRefusedEveryLoadNeverServedFromTheEarlierParse() throws IOException {
        Path f = file();
        Files.writeString(f, "sandbox:\n  allow: [{path: ~/.eeee, mode: ro}]\n");
        assertThat(grantedPath()).isEqualTo("~/.eeee");
        Files.writeString(f, "sandbox:\n  allow: [{path: ~/.eeee, mode: rwxx}]\n");
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(this::grantedPath).isInstanceOfSatisfying(SandboxException.class,
                    e -> assertThat(e.code()).isEqualTo(Code.MGS2004));
        }
        Files.writeString(f, "sandbox:\n  allow: [{path: ~/.ffff, mode: ro}]\n");
        assertThat(grantedPath()).isEqualTo("~/.ffff");
    }

    @Test
    void theProvidersAreFoundOnEveryLoadAndASpellFileRemovedIsGone() throws IOException {
        Path f = file();
        Files.writeString(f, "sandbox:\n  allow: [{path: ~/.gggg, mode: ro}]\n");
        for (int i = 0; i < 2; i++) {
            SpellCatalog c = SpellCatalog.load(ws, HOST, READ, getClass().getClassLoader(), parses);
            assertThat(c.knows("fixture")).isTrue();
            assertThat(c.knows("cachetool")).isTrue();
        }
        Files.delete(f);
        SpellCatalog c = SpellCatalog.load(ws, HOST, READ, getClass().getClassLoader(), parses);
        assertThat(c.knows("cachetool")).isFalse();
        assertThatThrownBy(() -> c.spell("cachetool")).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.code()).isEqualTo(Code.MGS2004));
    }
}
