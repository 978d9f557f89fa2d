package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.path.DirectoryReader.Stamp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A control file's content is what the file holds when read, whatever size its stamp said. */
class EntryReadsTest {
    @TempDir
    Path dir;

    private static Node read(Path f, long stampedSize) {
        return EntryReads.node(f, new Stamp(1, 2, Stamp.S_IFREG | 0644, 1, stampedSize, 0, 0));
    }

    @Test
    void aFileThatGrewOrShrankSinceItsStampIsReadWhole() throws Exception {
        String text = "x".repeat(10_000) + "end";
        Path f = Files.writeString(dir.resolve(".envrc"), text);
        Node expected = new Node.File(0644, Node.Content.of(text.getBytes(StandardCharsets.UTF_8)));
        assertThat(read(f, 0)).isEqualTo(expected);
        assertThat(read(f, 3)).isEqualTo(expected);
        assertThat(read(f, text.length())).isEqualTo(expected);
        assertThat(read(f, 1_000_000)).isEqualTo(expected);
        assertThat(read(Files.writeString(dir.resolve("empty"), ""), 0))
                .isEqualTo(new Node.File(0644, Node.Content.of(new byte[0])));
    }
}
