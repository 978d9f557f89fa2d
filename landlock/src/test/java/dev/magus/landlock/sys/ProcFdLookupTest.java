package dev.magus.landlock.sys;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.path.KernelLookup;
import dev.magus.policy.path.PathResolver;
import dev.magus.policy.path.Resolution;
import java.io.IOException;
import java.nio.channels.Pipe;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel's answers on a real filesystem, and the uncached {@link PathResolver} that asks
 * them first: for every request it must answer exactly as the walk does, from the kernel when
 * the path exists (the lookup says something) and from the walk when it does not or the
 * kernel cannot say exactly (the lookup says nothing).
 */
class ProcFdLookupTest {

    @TempDir
    Path tmp;

    Path t;

    final ProcFdLookup lookup = new ProcFdLookup();
    final PathResolver kernelFirst = new PathResolver();
    final PathResolver walk = PathResolver.walking();

    @BeforeAll
    static void linuxOnly() {
        KernelLookupHost.assumeLinuxAndLoadNatives();
    }

    @BeforeEach
    void realTemp() throws IOException {
        t = tmp.toRealPath();
    }

    /** Both resolvers answer {@code expected}; returns what the lookup itself said. */
    private Optional<String> resolvesTo(Path request, Resolution expected) {
        assertThat(walk.resolve(request)).as("walk " + request).isEqualTo(expected);
        assertThat(kernelFirst.resolve(request)).as("kernel first " + request).isEqualTo(expected);
        return lookup.realPath(request.toString());
    }

    private Optional<String> resolvesTo(Path request, Path cwd, Resolution expected) {
        assertThat(walk.resolve(request, cwd)).as("walk " + request + " in " + cwd).isEqualTo(expected);
        assertThat(kernelFirst.resolve(request, cwd)).as("kernel first " + request + " in " + cwd).isEqualTo(expected);
        return lookup.realPath(cwd + "/" + request);
    }

    private static Resolution existing(Path p) {
        return new Resolution.Resolved(p, true);
    }

    private static Resolution missing(Path p) {
        return new Resolution.Resolved(p, false);
    }

    /**
     * {@link ProcFdLookup#unlinked}: YES only when no component is a link (the last one, a
     * dangling one and a magic one included), ABSENT only when the path is missing or passes a
     * file before any link, and every answer agrees with the walk.
     */
    @Test
    void unlinkedSaysYesOnlyForAPathWithNoLinkInIt() throws IOException {
        Path dir = Files.createDirectories(t.resolve("real/sub"));
        Path file = Files.writeString(dir.resolve("f"), "x");
        Path link = Files.createSymbolicLink(t.resolve("link"), t.resolve("real"));
        Path last = Files.createSymbolicLink(dir.resolve("last"), file);
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), t.resolve("nowhere"));
        assertThat(lookup.unlinked(dir.toString())).isEqualTo(KernelLookup.Unlinked.YES);
        assertThat(lookup.unlinked(file.toString())).isEqualTo(KernelLookup.Unlinked.YES);
        assertThat(lookup.unlinked("/")).isEqualTo(KernelLookup.Unlinked.YES);
        assertThat(lookup.unlinked(link + "/sub/f")).isEqualTo(KernelLookup.Unlinked.LINKED);
        assertThat(lookup.unlinked(link.toString())).isEqualTo(KernelLookup.Unlinked.LINKED);
        assertThat(lookup.unlinked(last.toString())).isEqualTo(KernelLookup.Unlinked.LINKED);
        assertThat(lookup.unlinked(dangling.toString())).isEqualTo(KernelLookup.Unlinked.LINKED);
        assertThat(lookup.unlinked("/proc/self/cwd")).isEqualTo(KernelLookup.Unlinked.LINKED);
        assertThat(lookup.unlinked("/proc/self/root/etc")).isEqualTo(KernelLookup.Unlinked.LINKED);
        assertThat(lookup.unlinked(t + "/real/missing/x")).isEqualTo(KernelLookup.Unlinked.ABSENT);
        assertThat(lookup.unlinked(file + "/x")).isEqualTo(KernelLookup.Unlinked.ABSENT);
        assertThat(lookup.unlinked(t + "/real/nul\0x")).isEqualTo(KernelLookup.Unlinked.UNKNOWN);
        for (Path p : List.of(dir, file, link, last, dangling, Path.of("/proc/self/cwd"), Path.of("/proc/self/root/etc"),
                t.resolve("real/missing/x"), file.resolve("x"), Path.of("/"))) {
            assertThat(kernelFirst.resolve(p)).as("resolve " + p).isEqualTo(walk.resolve(p));
            assertThat(kernelFirst.trace(p)).as("trace " + p).isEqualTo(walk.trace(p));
        }
    }

    @Test
    void aDescriptorIsNamedInDecimalBeneathProcSelfFd() {
        byte[] name = new byte[12];
        assertThat(new String(ProcFdLookup.fdName(name, 0), 0, 2, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("0\0");
        assertThat(new String(ProcFdLookup.fdName(name, 907), 0, 4, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("907\0");
        assertThat(new String(ProcFdLookup.fdName(name, Integer.MAX_VALUE), 0, 11, java.nio.charset.StandardCharsets.US_ASCII))
                .isEqualTo(Integer.MAX_VALUE + "\0");
    }

    /** The one descriptor of /proc/self/fd serves every thread: the same answers from another thread, many times over. */
    @Test
    void everyThreadGetsTheSameAnswersThroughTheSharedDirectory() throws Exception {
        Path dir = Files.createDirectories(t.resolve("a/b"));
        Files.createSymbolicLink(t.resolve("link"), dir);
        String here = lookup.realPath(t.resolve("link").toString()).orElseThrow();
        assertThat(here).isEqualTo(dir.toString());
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<Optional<String>>> answers = new java.util.ArrayList<>();
            for (int i = 0; i < 400; i++) {
                answers.add(pool.submit(() -> lookup.realPath(t.resolve("link").toString())));
            }
            for (var a : answers) {
                assertThat(a.get()).contains(dir.toString());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Were the number of the /proc/self/fd descriptor closed by some other code's mistake and
     * reused for a directory a run wrote, a link named after the next descriptor there must not
     * be taken for where a path leads: the lookup sees that the number no longer names the file
     * it opened, gives it up, and reads the whole /proc/self/fd/N path.
     */
    @Test
    void aReusedDescriptorNumberIsNotTrusted() throws Exception {
        Path real = Files.createDirectories(t.resolve("real/dir"));
        Files.createSymbolicLink(t.resolve("asked"), real);
        Path planted = Files.createDirectories(t.resolve("planted"));
        for (int n = 0; n < 1024; n++) {
            Files.createSymbolicLink(planted.resolve(Integer.toString(n)), Path.of("/etc"));
        }
        assertThat(lookup.realPath(t.resolve("asked").toString())).contains(real.toString());
        int before = ProcFdLookup.descriptor();
        assertThat(before).as("opened by the first lookup").isNotNegative();
        Syscalls sys = Natives.syscalls();
        int other = sys.open((planted + "\0").getBytes(StandardCharsets.UTF_8), LibC.O_PATH | LibC.O_CLOEXEC, 0);
        assertThat(other).isNotNegative();
        try {
            ProcFdLookup.pretendReusedFor(other);
            assertThat(lookup.realPath(t.resolve("asked").toString())).contains(real.toString());
            assertThat(ProcFdLookup.descriptor()).as("given up").isEqualTo(-1);
            assertThat(lookup.realPath(t.resolve("asked").toString())).contains(real.toString());
        } finally {
            sys.close(other);
            ProcFdLookup.reopen();
        }
        assertThat(lookup.realPath(t.resolve("asked").toString())).contains(real.toString());
        assertThat(ProcFdLookup.descriptor()).as("opened anew").isNotNegative();
    }

    @Test
    void isTheInstalledLookupOfTheUncachedResolver() {
        assertThat(ServiceLoader.load(KernelLookup.class).stream().map(ServiceLoader.Provider::type))
                .contains(ProcFdLookup.class);
        assertThat(kernelFirst.asksKernel()).isTrue();
        assertThat(walk.asksKernel()).isFalse();
        assertThat(PathResolver.caching(8).asksKernel()).isFalse();
    }

    @Test
    void absoluteAndRelativeLinksAndChains() throws IOException {
        Files.createDirectories(t.resolve("elsewhere"));
        Files.writeString(t.resolve("elsewhere/f"), "x");
        Files.createDirectories(t.resolve("ws"));
        Files.createSymbolicLink(t.resolve("ws/abs"), t.resolve("elsewhere"));
        Files.createSymbolicLink(t.resolve("ws/rel"), Path.of("../elsewhere/f"));
        Files.createSymbolicLink(t.resolve("l1"), Path.of("l2"));
        Files.createSymbolicLink(t.resolve("l2"), t.resolve("l3"));
        Files.createSymbolicLink(t.resolve("l3"), Path.of("ws/./abs/"));

        assertThat(resolvesTo(t.resolve("ws/abs/f"), existing(t.resolve("elsewhere/f"))))
                .contains(t.resolve("elsewhere/f").toString());
        assertThat(resolvesTo(t.resolve("ws/rel"), existing(t.resolve("elsewhere/f")))).isPresent();
        assertThat(resolvesTo(t.resolve("l1/f"), existing(t.resolve("elsewhere/f")))).isPresent();
        assertThat(resolvesTo(t.resolve("l1"), existing(t.resolve("elsewhere")))).isPresent();
        assertThat(resolvesTo(Path.of("/"), existing(Path.of("/")))).contains("/");
    }

    @Test
    void dotDotAfterALinkClimbsOutOfItsTarget() throws IOException {
        Files.createDirectories(t.resolve("ws"));
        Files.createDirectories(t.resolve("outside/elsewhere"));
        Files.writeString(t.resolve("outside/x"), "secret");
        Files.writeString(t.resolve("ws/x"), "decoy");
        Files.createSymbolicLink(t.resolve("ws/link"), t.resolve("outside/elsewhere"));

        assertThat(resolvesTo(t.resolve("ws/link/../x"), existing(t.resolve("outside/x"))))
                .contains(t.resolve("outside/x").toString());
        assertThat(resolvesTo(Path.of("link/../x"), t.resolve("ws"), existing(t.resolve("outside/x"))))
                .isPresent();
        // The working directory itself a link: the request starts from where it leads.
        assertThat(resolvesTo(Path.of("../x"), t.resolve("ws/link"), existing(t.resolve("outside/x"))))
                .isPresent();
    }

    @Test
    void aDanglingLinkOrAMissingTailIsTheWalks() throws IOException {
        Files.createDirectories(t.resolve("real"));
        Files.createSymbolicLink(t.resolve("dangling"), Path.of("real/nothing/here"));

        assertThat(resolvesTo(t.resolve("dangling"), missing(t.resolve("real/nothing/here")))).isEmpty();
        assertThat(resolvesTo(t.resolve("real/missing/x"), missing(t.resolve("real/missing/x")))).isEmpty();
        assertThat(resolvesTo(Path.of("missing/../x"), t.resolve("real"), missing(t.resolve("real/x")))).isEmpty();
    }

    @Test
    void aLoopIsTheWalksTooManyLinks() throws IOException {
        Files.createSymbolicLink(t.resolve("a"), Path.of("b"));
        Files.createSymbolicLink(t.resolve("b"), Path.of("a"));

        assertThat(lookup.realPath(t.resolve("a/x").toString())).isEmpty();
        assertThat(walk.resolve(t.resolve("a/x"))).isInstanceOf(Resolution.TooManyLinks.class);
        assertThat(kernelFirst.resolve(t.resolve("a/x"))).isEqualTo(walk.resolve(t.resolve("a/x")));
        assertThat(kernelFirst.resolve(Path.of("a"), t)).isEqualTo(walk.resolve(Path.of("a"), t))
                .isInstanceOf(Resolution.TooManyLinks.class);
    }

    @Test
    void beneathAFileIsTheWalksNotADirectory() throws IOException {
        Files.writeString(t.resolve("file"), "x");
        // Path drops a trailing slash; "file/." demands a directory just the same.
        Files.createSymbolicLink(t.resolve("slash"), Path.of("file/."));

        assertThat(resolvesTo(t.resolve("file/x"), missing(t.resolve("file/x")))).isEmpty();
        assertThat(resolvesTo(t.resolve("file/.."), missing(t.resolve("file")))).isEmpty();
        // A target ending in "/." or "/" demands a directory (a request's own "/" is dropped by Path).
        assertThat(resolvesTo(t.resolve("slash"), missing(t.resolve("file")))).isEmpty();
        assertThat(lookup.realPath(t + "/file/")).isEmpty();
        assertThat(lookup.realPath(t + "/file")).contains(t + "/file");
    }

    @Test
    void spacesAndNamesBeyondAscii() throws IOException {
        Assumptions.assumeTrue(Charset.forName(System.getProperty("sun.jnu.encoding")).equals(StandardCharsets.UTF_8),
                "skipped: the JVM does not name files in UTF-8 here (sun.jnu.encoding)");
        Path dir = Files.createDirectories(t.resolve("with space/é ü 日本"));
        Files.writeString(dir.resolve("ñ"), "x");
        Files.createSymbolicLink(t.resolve("ß link"), Path.of("with space/é ü 日本/ñ"));

        assertThat(resolvesTo(t.resolve("ß link"), existing(dir.resolve("ñ")))).contains(dir.resolve("ñ").toString());
        assertThat(resolvesTo(Path.of("with space/é ü 日本/../é ü 日本"), t, existing(dir))).isPresent();
    }

    @Test
    void aNameEndingLikeARemovedFileIsTheWalks() throws IOException {
        Files.writeString(t.resolve("x (deleted)"), "x");
        Files.createSymbolicLink(t.resolve("to it"), Path.of("x (deleted)"));

        assertThat(resolvesTo(t.resolve("x (deleted)"), existing(t.resolve("x (deleted)")))).isEmpty();
        assertThat(resolvesTo(t.resolve("to it"), existing(t.resolve("x (deleted)")))).isEmpty();
    }

    @Test
    void saysNothingForWhatItCannotPassToTheKernel() {
        assertThat(lookup.realPath(t + "/a\0b")).isEmpty();
        assertThat(lookup.realPath("relative")).isEmpty();
        assertThat(lookup.realPath("")).isEmpty();
        assertThat(lookup.realPath(t + "/" + "n".repeat(5000))).isEmpty();
        // A lone surrogate has no UTF-8 form: encoding it would name another file.
        assertThat(lookup.realPath(t + "/" + (char) 0xD800)).isEmpty();
    }

    @Test
    void aMagicLinkToWhatIsNotAPathIsTheWalks() throws IOException {
        // /proc/self/fd/N of a pipe opens, and reads back as "pipe:[inode]": not a path.
        Path self = Path.of("/proc/self/fd");
        Assumptions.assumeTrue(Files.isDirectory(self), "skipped: /proc is not mounted");
        Pipe pipe = Pipe.open();
        try (var source = pipe.source(); var sink = pipe.sink()) {
            List<Path> pipes = descriptorsTo(target -> target.startsWith("pipe:"));
            if (!pipes.isEmpty()) {
                Path fd = pipes.get(0);
                assertThat(lookup.realPath(fd.toString())).isEmpty();
                assertThat(kernelFirst.resolve(fd)).isEqualTo(walk.resolve(fd));
                return;
            }
        }
        Assumptions.abort("skipped: no pipe among this process's descriptors");
    }

    @Test
    void aMagicLinkIsNeverFollowedByTheKernelButReadByTheWalk() throws IOException {
        // The kernel would jump through /proc/self/cwd and /proc/self/fd/N to the object behind
        // them, which need not have a name this process reaches; the walk reads their text.
        Path cwd = Path.of("/proc/self/cwd");
        Assumptions.assumeTrue(Files.isSymbolicLink(cwd), "skipped: /proc is not mounted");
        assertThat(lookup.realPath(cwd.toString())).as("the kernel's answer through a magic link").isEmpty();
        assertThat(kernelFirst.resolve(cwd)).isEqualTo(walk.resolve(cwd));
        Path file = Files.writeString(t.resolve("held"), "x");
        try (var ch = java.nio.channels.FileChannel.open(file)) {
            List<Path> held = descriptorsTo(target -> target.equals(file.toString()));
            assertThat(held).as("descriptors of the held file").isNotEmpty();
            for (Path fd : held) {
                assertThat(lookup.realPath(fd.toString())).as(fd.toString()).isEmpty();
                assertThat(kernelFirst.resolve(fd)).isEqualTo(walk.resolve(fd));
            }
        }
        // an ordinary link under /proc is followed: /proc/self names this process's directory
        assertThat(lookup.realPath("/proc/self/status")).hasValueSatisfying(p -> assertThat(p).matches("/proc/[0-9]+/status"));
    }

    /** This process's {@code /proc/self/fd/N} links whose text {@code target} accepts. */
    private static List<Path> descriptorsTo(java.util.function.Predicate<String> target) throws IOException {
        List<Path> found = new java.util.ArrayList<>();
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    if (target.test(Files.readSymbolicLink(fd).toString())) {
                        found.add(fd);
                    }
                } catch (IOException gone) {
                    // the descriptor was closed while we listed (the listing's own, for one)
                }
            }
        }
        return found;
    }
}
