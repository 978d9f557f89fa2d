package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.events.SandboxException;
import dev.magus.orchestrator.binding.ArchiveLimits;
import dev.magus.orchestrator.binding.Sandbox;
import dev.magus.orchestrator.binding.SandboxArchives;
import dev.magus.orchestrator.run.RunRequest;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binding layer's archive extraction against the classic attacks: each is refused with
 * MGS2002 ({@code layer=binding}) and nothing is written outside the target, while ordinary
 * archives (directories, files, links that stay inside) come out whole.
 */
class SandboxArchivesTest {
    @TempDir
    Path root;
    TestHost t;
    Sandbox session;
    Path secret;
    Path target;

    @BeforeEach
    void setUp() throws IOException {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml("sandbox:\n  mode: required\n");
        secret = Files.createDirectories(t.home.resolve(".ssh")).resolve("id_rsa");
        Files.writeString(secret, "PRIVATE KEY\n");
        target = t.workspace.resolve("out");
        session = Sandbox.open(t.orchestrator(), t.host(), RunRequest.builder(t.workspace, "true").build());
    }

    @AfterEach
    void tearDown() {
        if (session != null) {
            session.close();
        }
    }

    private SandboxArchives archives() {
        return session.archives();
    }

    /** Every path under the test's root outside the workspace's target, with its size: what must not change. */
    private List<String> outside() throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> !p.startsWith(target) && !p.startsWith(t.tempBase) && !p.getFileName().toString().endsWith(".tar")
                    && !p.getFileName().toString().endsWith(".tgz") && !p.getFileName().toString().endsWith(".zip"))
                    .map(p -> p + " " + p.toFile().length()).sorted().toList();
        }
    }

    private interface TarBody {
        void write(TarArchiveOutputStream tar) throws IOException;
    }

    private Path tar(String name, boolean gzip, TarBody body) throws IOException {
        Path file = t.workspace.resolve(name);
        try (OutputStream raw = Files.newOutputStream(file);
                OutputStream out = gzip ? new GZIPOutputStream(raw) : raw;
                TarArchiveOutputStream tar = new TarArchiveOutputStream(out)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            body.write(tar);
        }
        return file;
    }

    private static void file(TarArchiveOutputStream tar, String name, String content) throws IOException {
        byte[] b = content.getBytes(StandardCharsets.UTF_8);
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setSize(b.length);
        tar.putArchiveEntry(e);
        tar.write(b);
        tar.closeArchiveEntry();
    }

    private static void link(TarArchiveOutputStream tar, String name, String text, byte type) throws IOException {
        TarArchiveEntry e = new TarArchiveEntry(name, type);
        e.setLinkName(text);
        tar.putArchiveEntry(e);
        tar.closeArchiveEntry();
    }

    private void refused(Path archive, String why) throws IOException {
        List<String> before = outside();
        assertThatThrownBy(() -> archives().extract(archive, target))
                .as(why)
                .isInstanceOf(SandboxException.class)
                .satisfies(e -> assertThat(((SandboxException) e).code()).isEqualTo(Code.MGS2002))
                .satisfies(e -> assertThat(((SandboxException) e).diagnostic().layer()).isEqualTo(Layer.BINDING));
        assertThat(outside()).as(why + ": nothing written outside the target").isEqualTo(before);
        assertThat(Files.readString(secret)).isEqualTo("PRIVATE KEY\n");
    }

    @Test
    void anOrdinaryTarGzWithDirectoriesFilesAndAnInsideLinkComesOutWhole() throws IOException {
        Path archive = tar("pkg.tgz", true, tar -> {
            tar.putArchiveEntry(new TarArchiveEntry("pkg/"));
            tar.closeArchiveEntry();
            file(tar, "pkg/lib/index.js", "module.exports = 1;\n");
            link(tar, "pkg/main.js", "lib/index.js", TarConstants.LF_SYMLINK);
            link(tar, "pkg/copy.js", "pkg/lib/index.js", TarConstants.LF_LINK);
        });
        SandboxArchives.Extracted x = archives().extract(archive, target);
        assertThat(x.entries()).isEqualTo(4);
        assertThat(Files.readString(target.resolve("pkg/main.js"))).isEqualTo("module.exports = 1;\n");
        assertThat(Files.readSymbolicLink(target.resolve("pkg/main.js"))).isEqualTo(Path.of("lib/index.js"));
        assertThat(Files.readString(target.resolve("pkg/copy.js"))).isEqualTo("module.exports = 1;\n");
    }

    @Test
    void aZipSlipNameIsRefused() throws IOException {
        refused(tar("slip.tar", false, tar -> file(tar, "../../home/.bashrc", "evil\n")), "zip-slip");
        assertThat(t.home.resolve(".bashrc")).doesNotExist();
    }

    @Test
    void anAbsoluteNameIsRefused() throws IOException {
        refused(tar("abs.tar", false, tar -> {
            byte[] b = "evil\n".getBytes(StandardCharsets.UTF_8);
            TarArchiveEntry e = new TarArchiveEntry(t.home.resolve(".profile").toString(), true);
            e.setSize(b.length);
            tar.putArchiveEntry(e);
            tar.write(b);
            tar.closeArchiveEntry();
        }), "absolute");
        assertThat(t.home.resolve(".profile")).doesNotExist();
    }

    @Test
    void aLinkThatLeavesTheTargetIsRefusedAndSoIsAWriteThroughIt() throws IOException {
        refused(tar("link.tar", false, tar -> {
            link(tar, "ssh", "../../home/.ssh", TarConstants.LF_SYMLINK);
            file(tar, "ssh/authorized_keys", "ssh-ed25519 AAAA attacker\n");
        }), "link escape");
        assertThat(t.home.resolve(".ssh/authorized_keys")).doesNotExist();
        refused(tar("abslink.tar", false, tar -> link(tar, "key", secret.toString(), TarConstants.LF_SYMLINK)), "absolute link");
    }

    @Test
    void aLinkPlantedBeforeTheExtractionIsNotWrittenThrough() throws IOException {
        Files.createDirectories(target);
        Files.createSymbolicLink(target.resolve("ssh"), t.home.resolve(".ssh"));
        refused(tar("through.tar", false, tar -> file(tar, "ssh/authorized_keys", "attacker\n")), "planted link");
        assertThat(t.home.resolve(".ssh/authorized_keys")).doesNotExist();
    }

    @Test
    void aHardLinkToAPrivateKeyIsRefused() throws IOException {
        refused(tar("hard.tar", false, tar -> link(tar, "key", secret.toString(), TarConstants.LF_LINK)), "hard link, absolute");
        refused(tar("hard2.tar", false, tar -> link(tar, "key", "../../home/.ssh/id_rsa", TarConstants.LF_LINK)), "hard link, relative");
        assertThat(target.resolve("key")).doesNotExist();
    }

    @Test
    void aDeviceEntryIsRefused() throws IOException {
        refused(tar("dev.tar", false, tar -> {
            TarArchiveEntry e = new TarArchiveEntry("null", TarConstants.LF_CHR);
            e.setDevMajor(1);
            e.setDevMinor(3);
            tar.putArchiveEntry(e);
            tar.closeArchiveEntry();
        }), "device");
    }

    @Test
    void anArchiveOfAHundredThousandEntriesIsRefusedAtTheLimit() throws IOException {
        Path zip = t.workspace.resolve("bomb.zip");
        try (java.util.zip.ZipOutputStream out = new java.util.zip.ZipOutputStream(
                new java.io.BufferedOutputStream(Files.newOutputStream(zip), 1 << 20))) {
            for (int i = 0; i < 100_000; i++) {
                out.putNextEntry(new java.util.zip.ZipEntry("e" + i));
                out.closeEntry();
            }
        }
        assertThatThrownBy(() -> archives().extract(zip, target, new ArchiveLimits(1_000, 1 << 20)))
                .isInstanceOf(SandboxException.class)
                .hasMessageContaining("more than 1000 entries");
        try (Stream<Path> s = Files.list(target)) {
            assertThat(s.count()).as("judged whole before any entry is written").isZero();
        }
        assertThatThrownBy(() -> archives().extract(zip, t.workspace.resolve("out2")))
                .isInstanceOf(SandboxException.class)
                .hasMessageContaining("more than " + ArchiveLimits.DEFAULT.maxEntries() + " entries");
    }

    @Test
    void anEntryDeclaringTenGigabytesIsRefusedBeforeAByteIsWritten() throws IOException {
        Path archive = t.workspace.resolve("big.tar");
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes);
        tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
        TarArchiveEntry e = new TarArchiveEntry("huge.bin");
        e.setSize(10L << 30);
        tar.putArchiveEntry(e);
        tar.write(new byte[4096]);
        tar.flush();
        // Never closed: the archive declares 10 GiB and holds 4 KiB.
        Files.write(archive, bytes.toByteArray());
        refused(archive, "declared bomb");
        assertThat(target.resolve("huge.bin")).doesNotExist();
    }

    @Test
    void bytesBeyondTheLimitStopTheExtractionAndTheCutEntryIsRemoved() throws IOException {
        Path archive = tar("many.tar", false, tar -> {
            file(tar, "a", "x".repeat(600));
            file(tar, "b", "y".repeat(600));
        });
        assertThatThrownBy(() -> archives().extract(archive, target, new ArchiveLimits(100, 1_000)))
                .isInstanceOf(SandboxException.class);
        assertThat(target.resolve("a")).exists();
        assertThat(target.resolve("b")).doesNotExist();
        session.close();
        List<Diagnostic> diags = session.events().ofType(RunEvent.Diag.class).map(RunEvent.Diag::diagnostic).collectList()
                .block(TestHost.DEADLINE);
        assertThat(diags).extracting(Diagnostic::code).containsExactly(Code.MGS2002);
    }

    @Test
    void theArchiveItselfIsReadUnderTheReadRules() throws IOException {
        Path archive = t.home.resolve(".ssh/pkg.tar");
        try (OutputStream raw = Files.newOutputStream(archive); TarArchiveOutputStream tar = new TarArchiveOutputStream(raw)) {
            file(tar, "a", "x");
        }
        assertThatThrownBy(() -> archives().extract(archive, target))
                .isInstanceOf(SandboxException.class)
                .satisfies(e -> assertThat(((SandboxException) e).code()).isEqualTo(Code.MGS2001));
    }
}
