package dev.magus.policy.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PathResolverTest {

    @TempDir
    Path tmp;

    /** The temp dir's real path: the resolver answers real paths, and /tmp may itself be a link. */
    Path t;

    final PathResolver resolver = new PathResolver();

    @BeforeEach
    void realTemp() throws IOException {
        t = tmp.toRealPath();
    }

    private Resolution resolve(String absolute) {
        return resolver.resolve(Path.of(absolute));
    }

    private static Resolution.Resolved existing(Path p) {
        return new Resolution.Resolved(p, true);
    }

    private static Resolution.Resolved missing(Path p) {
        return new Resolution.Resolved(p, false);
    }

    @Test
    void plainExistingPathIsItself() throws IOException {
        Files.createDirectories(t.resolve("a/b"));
        assertThat(resolver.resolve(t.resolve("a/b"))).isEqualTo(existing(t.resolve("a/b")));
        assertThat(resolver.resolve(Path.of("/"))).isEqualTo(existing(Path.of("/")));
    }

    @Test
    void absoluteLinkIsFollowed() throws IOException {
        Files.createDirectories(t.resolve("elsewhere"));
        Files.writeString(t.resolve("elsewhere/f"), "x");
        Files.createDirectories(t.resolve("ws"));
        Files.createSymbolicLink(t.resolve("ws/link"), t.resolve("elsewhere"));
        assertThat(resolver.resolve(t.resolve("ws/link/f"))).isEqualTo(existing(t.resolve("elsewhere/f")));
        assertThat(resolver.resolve(t.resolve("ws/link"))).isEqualTo(existing(t.resolve("elsewhere")));
    }

    @Test
    void relativeLinkIsFollowedFromTheLinksDirectory() throws IOException {
        Files.createDirectories(t.resolve("a/b"));
        Files.createDirectories(t.resolve("a/c"));
        Files.createSymbolicLink(t.resolve("a/b/up"), Path.of("../c"));
        assertThat(resolver.resolve(t.resolve("a/b/up"))).isEqualTo(existing(t.resolve("a/c")));
    }

    @Test
    void chainOfLinksIsFollowedToTheEnd() throws IOException {
        Files.createDirectories(t.resolve("d/real"));
        Files.createSymbolicLink(t.resolve("l1"), Path.of("l2"));
        Files.createSymbolicLink(t.resolve("l2"), t.resolve("l3"));
        Files.createSymbolicLink(t.resolve("l3"), Path.of("d/./real/"));
        assertThat(resolver.resolve(t.resolve("l1"))).isEqualTo(existing(t.resolve("d/real")));
    }

    @Test
    void dotDotClimbsOutOfTheResolvedDirectoryNotTheSpelledOne() throws IOException {
        Files.createDirectories(t.resolve("ws"));
        Files.createDirectories(t.resolve("outside/elsewhere"));
        Files.writeString(t.resolve("outside/x"), "secret");
        Files.writeString(t.resolve("ws/x"), "decoy");
        Files.createSymbolicLink(t.resolve("ws/link"), t.resolve("outside/elsewhere"));
        // Lexically ws/link/../x is ws/x; the kernel reaches outside/x.
        assertThat(resolver.resolve(Path.of(t + "/ws/link/../x"))).isEqualTo(existing(t.resolve("outside/x")));
        assertThat(Path.of(t + "/ws/link/../x").toRealPath()).isEqualTo(t.resolve("outside/x"));
    }

    @Test
    void dotsAndRepeatedSlashesAreIgnored() throws IOException {
        Files.createDirectories(t.resolve("a/b"));
        assertThat(resolve(t + "//a/./b//.")).isEqualTo(existing(t.resolve("a/b")));
        assertThat(resolve(t + "/a/b/../../a")).isEqualTo(existing(t.resolve("a")));
        assertThat(resolve("/..//../" + t)).isEqualTo(existing(t));
    }

    @Test
    void relativeRequestIsResolvedAgainstTheWorkingDirectory() throws IOException {
        Files.createDirectories(t.resolve("real/sub"));
        Files.createSymbolicLink(t.resolve("cwdlink"), t.resolve("real"));
        assertThat(resolver.resolve(Path.of("sub"), t.resolve("cwdlink"))).isEqualTo(existing(t.resolve("real/sub")));
        // .. from a linked working directory climbs out of its target, as after chdir.
        Files.createDirectories(t.resolve("other"));
        assertThat(resolver.resolve(Path.of("../other"), t.resolve("cwdlink"))).isEqualTo(existing(t.resolve("other")));
        assertThat(resolver.resolve(Path.of("."), t.resolve("cwdlink"))).isEqualTo(existing(t.resolve("real")));
        // An absolute request ignores the working directory.
        assertThat(resolver.resolve(t.resolve("other"), Path.of("/nonexistent"))).isEqualTo(existing(t.resolve("other")));
    }

    @Test
    void missingTailIsKeptAsWrittenAfterTheResolvedPrefix() throws IOException {
        Files.createDirectories(t.resolve("real"));
        Files.createSymbolicLink(t.resolve("link"), t.resolve("real"));
        assertThat(resolve(t + "/link/new/./deeper//file.txt"))
                .isEqualTo(missing(t.resolve("real/new/deeper/file.txt")));
        assertThat(resolve(t + "/link/new/gone/../file")).isEqualTo(missing(t.resolve("real/new/file")));
    }

    @Test
    void dotDotOverAMissingPartResumesTheRealWalkButStillReportsMissing() throws IOException {
        Files.createDirectories(t.resolve("real"));
        Files.createSymbolicLink(t.resolve("real/l"), t.resolve("target"));
        Files.createDirectories(t.resolve("target"));
        assertThat(resolve(t + "/real/missing/../l")).isEqualTo(missing(t.resolve("target")));
    }

    @Test
    void danglingLinkIsFollowedSoAWriteLandsWhereTheLinkPoints() throws IOException {
        Files.createDirectories(t.resolve("ws"));
        Files.createDirectories(t.resolve("outside"));
        Files.createSymbolicLink(t.resolve("ws/out"), t.resolve("outside/not-yet"));
        assertThat(resolver.resolve(t.resolve("ws/out"))).isEqualTo(missing(t.resolve("outside/not-yet")));
        Files.createSymbolicLink(t.resolve("ws/rel"), Path.of("../outside/nope/deeper"));
        assertThat(resolver.resolve(t.resolve("ws/rel/f"))).isEqualTo(missing(t.resolve("outside/nope/deeper/f")));
    }

    @Test
    void loopIsTooManyLinks() throws IOException {
        Files.createSymbolicLink(t.resolve("a"), Path.of("b"));
        Files.createSymbolicLink(t.resolve("b"), Path.of("a"));
        Resolution r = resolver.resolve(t.resolve("a/x"));
        assertThat(r).isInstanceOfSatisfying(Resolution.TooManyLinks.class, loop -> {
            assertThat(loop.request()).isEqualTo(t.resolve("a/x"));
            assertThat(loop.reached().getParent()).isEqualTo(t);
        });
        assertThat(r.resolvedPath()).isEmpty();
        assertThat(r.existing()).isFalse();
        assertThatThrownBy(() -> t.resolve("a/x").toRealPath()).isInstanceOf(FileSystemException.class);
        Files.createSymbolicLink(t.resolve("self"), Path.of("self"));
        assertThat(resolver.resolve(t.resolve("self"))).isInstanceOf(Resolution.TooManyLinks.class);
    }

    /** l0 -> l1 -> ... -> l{n-1} -> dir: n links in one resolution. */
    private Path chain(String prefix, int n) throws IOException {
        Files.createDirectories(t.resolve("dir"));
        Files.createSymbolicLink(t.resolve(prefix + (n - 1)), t.resolve("dir"));
        for (int i = n - 2; i >= 0; i--) {
            Files.createSymbolicLink(t.resolve(prefix + i), Path.of(prefix + (i + 1)));
        }
        return t.resolve(prefix + 0);
    }

    @Test
    void fortyLinksAreFollowedTheFortyFirstIsRefused() throws IOException {
        Path forty = chain("k", PathResolver.MAX_LINKS);
        assertThat(resolver.resolve(forty)).isEqualTo(existing(t.resolve("dir")));
        assertThat(forty.toRealPath()).isEqualTo(t.resolve("dir"));

        Path fortyOne = chain("m", PathResolver.MAX_LINKS + 1);
        assertThat(resolver.resolve(fortyOne)).isInstanceOf(Resolution.TooManyLinks.class);
        assertThatThrownBy(fortyOne::toRealPath).isInstanceOf(FileSystemException.class);
    }

    @Test
    void linksCountAcrossTheWholeRequestNotPerComponent() throws IOException {
        Path twenty = chain("n", 20);
        // 20 links to reach dir, then back -> n1 is 20 more: 40 is fine; back2 -> back is one more.
        Files.createSymbolicLink(t.resolve("dir/back"), t.resolve("n1"));
        Files.createSymbolicLink(t.resolve("dir/back2"), Path.of("back"));
        assertThat(resolver.resolve(twenty.resolve("back"))).isEqualTo(existing(t.resolve("dir")));
        assertThat(twenty.resolve("back").toRealPath()).isEqualTo(t.resolve("dir"));
        assertThat(resolver.resolve(twenty.resolve("back2"))).isInstanceOf(Resolution.TooManyLinks.class);
        assertThatThrownBy(() -> twenty.resolve("back2").toRealPath()).isInstanceOf(FileSystemException.class);
    }

    @Test
    void nonDirectoryInTheMiddleMeansNothingBeneathExists() throws IOException {
        Files.createDirectories(t.resolve("d"));
        Files.writeString(t.resolve("d/file"), "x");
        Files.createSymbolicLink(t.resolve("flink"), t.resolve("d/file"));
        assertThat(resolve(t + "/d/file/x")).isEqualTo(missing(t.resolve("d/file/x")));
        assertThat(resolve(t + "/flink/x/y")).isEqualTo(missing(t.resolve("d/file/x/y")));
        // ENOTDIR also for file/. and file/..; a .. beneath the file never climbs above it.
        assertThat(resolve(t + "/d/file/.")).isEqualTo(missing(t.resolve("d/file")));
        assertThat(resolve(t + "/d/file/..")).isEqualTo(missing(t.resolve("d/file")));
        assertThat(resolve(t + "/d/file/../../../etc")).isEqualTo(missing(t.resolve("d/file/etc")));
        assertThatThrownBy(() -> Path.of(t + "/d/file/..").toRealPath()).isInstanceOf(FileSystemException.class);
    }

    @Test
    void linkTargetWithTrailingSlashMustBeADirectory() throws Exception {
        Files.writeString(t.resolve("file"), "x");
        // java.nio.file.Path drops a trailing slash, so the link is made the way a tool would.
        Process ln = new ProcessBuilder("ln", "-s", "file/", t.resolve("slashed").toString()).inheritIO().start();
        assertThat(ln.waitFor()).isZero();
        assertThat(Files.readSymbolicLink(t.resolve("slashed")).toString()).isEqualTo("file/");
        Resolution r = resolver.resolve(t.resolve("slashed"));
        assertThat(r).isEqualTo(missing(t.resolve("file")));
        assertThatThrownBy(() -> t.resolve("slashed").toRealPath()).isInstanceOf(FileSystemException.class);
    }

    @Test
    void aRelativeRequestWithoutWorkingDirectoryIsAProgrammingError() {
        assertThatThrownBy(() -> resolver.resolve(Path.of("rel"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aCachingResolverAnswersFromMemoryUntilInvalidated() throws IOException {
        PathResolver cached = PathResolver.caching(1000);
        assertThat(cached.isCaching()).isTrue();
        assertThat(resolver.isCaching()).isFalse();
        Files.createDirectories(t.resolve("one"));
        Files.createDirectories(t.resolve("two"));
        Files.createSymbolicLink(t.resolve("link"), t.resolve("one"));
        assertThat(cached.resolve(t.resolve("link/f"))).isEqualTo(missing(t.resolve("one/f")));

        // Missing components are never remembered: creating one needs no invalidation.
        Files.writeString(t.resolve("one/f"), "x");
        assertThat(cached.resolve(t.resolve("link/f"))).isEqualTo(existing(t.resolve("one/f")));

        // Re-pointing a link is not seen until the cache is told.
        Files.delete(t.resolve("link"));
        Files.createSymbolicLink(t.resolve("link"), t.resolve("two"));
        assertThat(cached.resolve(t.resolve("link"))).isEqualTo(existing(t.resolve("one")));
        assertThat(resolver.resolve(t.resolve("link"))).isEqualTo(existing(t.resolve("two")));
        cached.invalidate(t.resolve("link"));
        assertThat(cached.resolve(t.resolve("link"))).isEqualTo(existing(t.resolve("two")));

        Files.delete(t.resolve("link"));
        Files.createSymbolicLink(t.resolve("link"), t.resolve("one"));
        cached.invalidate();
        assertThat(cached.resolve(t.resolve("link"))).isEqualTo(existing(t.resolve("one")));
        assertThatThrownBy(() -> PathResolver.caching(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTraceNamesEachLinkFollowedWhereItLives() throws IOException {
        Files.createDirectories(t.resolve("ws/sub"));
        Files.writeString(t.resolve("ws/envrc.real"), "x");
        Files.createSymbolicLink(t.resolve("ws/.envrc"), Path.of("envrc.real"));
        Files.createSymbolicLink(t.resolve("ws/sub/up"), Path.of("../.envrc"));
        Files.createSymbolicLink(t.resolve("cwd"), t.resolve("ws"));
        for (PathResolver r : new PathResolver[] {resolver, PathResolver.walking(), PathResolver.caching(8)}) {
            assertThat(r.trace(t.resolve("ws/sub/up"))).isEqualTo(new Traced(existing(t.resolve("ws/envrc.real")),
                    java.util.List.of(t.resolve("ws/sub/up"), t.resolve("ws/.envrc"))));
            // Links met on the way to the working directory count too.
            assertThat(r.trace(Path.of("sub/up"), t.resolve("cwd")).links())
                    .containsExactly(t.resolve("cwd"), t.resolve("ws/sub/up"), t.resolve("ws/.envrc"));
            // A real path spelled as it is follows none, whoever answers.
            assertThat(r.trace(t.resolve("ws/envrc.real"))).isEqualTo(new Traced(existing(t.resolve("ws/envrc.real")),
                    java.util.List.of()));
            // A missing tail after a link keeps the link.
            assertThat(r.trace(t.resolve("cwd/new/file"))).isEqualTo(new Traced(missing(t.resolve("ws/new/file")),
                    java.util.List.of(t.resolve("cwd"))));
        }
    }
}
