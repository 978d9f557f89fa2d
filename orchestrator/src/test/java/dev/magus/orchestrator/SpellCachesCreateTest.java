package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.orchestrator.pipeline.SpellCaches;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A spell's cache is made only where it is safe: never through a symbolic link
 * planted in another component ({@code ~/.gradle -> ~/.ssh} must not make {@code ~/.ssh/caches}),
 * never into magus's own dirs, a credential store, or home.
 */
class SpellCachesCreateTest {
    @TempDir
    Path root;
    Path home;
    Path state;

    @BeforeEach
    void setUp() throws IOException {
        root = root.toRealPath();
        home = Files.createDirectories(root.resolve("home"));
        Files.createDirectories(home.resolve(".ssh"));
        state = Files.createDirectories(home.resolve(".local/state/magus"));
    }

    private java.util.Optional<Path> create(Path dir) {
        return SpellCaches.create(dir, home, List.of(state));
    }

    @Test
    void aCacheIsMadeWithItsParentsInAFreshHome() {
        assertThat(create(home.resolve(".gradle/caches"))).contains(home.resolve(".gradle/caches"));
        assertThat(home.resolve(".gradle/caches")).isDirectory();
        assertThat(create(home.resolve(".gradle/caches"))).as("exists: nothing to do").isEmpty();
    }

    @Test
    void aLinkInAnotherComponentIsNeverFollowed() throws IOException {
        Files.createSymbolicLink(home.resolve(".gradle"), home.resolve(".ssh"));
        assertThat(create(home.resolve(".gradle/caches"))).isEmpty();
        assertThat(home.resolve(".ssh/caches")).doesNotExist();
        // Nor deeper: ~/.cache -> elsewhere, ~/.cache/x/y.
        Path elsewhere = Files.createDirectories(root.resolve("elsewhere"));
        Files.createSymbolicLink(home.resolve(".cache"), elsewhere);
        assertThat(create(home.resolve(".cache/npm/x"))).isEmpty();
        assertThat(elsewhere.resolve("npm")).doesNotExist();
    }

    @Test
    void aLinkToMagusOwnStateDirIsRefused() throws IOException {
        Files.createSymbolicLink(home.resolve(".npm"), state);
        assertThat(create(home.resolve(".npm/_cacache"))).isEmpty();
        assertThat(state.resolve("_cacache")).doesNotExist();
        assertThat(create(state.resolve("audit2"))).isEmpty();
        assertThat(create(home.resolve(".local/state/x"))).as("not beside it either? allowed: not magus's").isPresent();
    }

    @Test
    void credentialStoresAndHomeAreRefused() {
        assertThat(create(home.resolve(".ssh/caches"))).isEmpty();
        assertThat(create(home.resolve(".aws/cli/cache"))).isEmpty();
        assertThat(home.resolve(".aws")).doesNotExist();
        assertThat(create(home.resolve("../home2"))).isPresent();
        assertThat(create(home)).isEmpty();
    }

    @Test
    void homeSpelledThroughALinkIsFine() throws IOException {
        Path linkedHome = Files.createSymbolicLink(root.resolve("h"), home);
        assertThat(SpellCaches.create(linkedHome.resolve(".npm"), linkedHome, List.of(state))).contains(home.resolve(".npm"));
    }
}
