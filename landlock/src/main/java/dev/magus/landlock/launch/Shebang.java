package dev.magus.landlock.launch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The interpreter a script's {@code #!} line names, as execve(2) reads it: the first word after
 * {@code #!} on the first line (at most 256 bytes), when absolute. The kernel asks Landlock
 * about the script and about its interpreter, so a refused exec of a script may be either.
 */
public final class Shebang {
    private static final int MAX = 256;

    private Shebang() {
    }

    /** The interpreter of {@code file}, read by magus (which is not confined); empty for any other file. */
    public static Optional<Path> interpreter(Path file) {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(MAX);
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
        if (head.length < 3 || head[0] != '#' || head[1] != '!') {
            return Optional.empty();
        }
        String line = new String(head, 2, head.length - 2, StandardCharsets.UTF_8).lines().findFirst().orElse("").strip();
        String first = line.split("\\s+", 2)[0];
        try {
            return first.startsWith("/") ? Optional.of(Path.of(first)) : Optional.empty();
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }
}
