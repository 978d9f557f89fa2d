package dev.magus.bench.path;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * What a user would write with the JDK alone: {@link Path#toRealPath} (glibc's
 * {@code realpath(3)} underneath), and for a path that does not exist yet, the real path of its
 * nearest existing ancestor followed by the rest as written, found by catching
 * {@link NoSuchFileException} one level at a time.
 */
public final class RealPath {
    private RealPath() {
    }

    public static Path resolve(Path absolute) throws IOException {
        Path existing = absolute;
        Path tail = null;
        while (true) {
            try {
                Path real = existing.toRealPath();
                return tail == null ? real : real.resolve(tail);
            } catch (NoSuchFileException missing) {
                Path name = existing.getFileName();
                Path parent = existing.getParent();
                if (name == null || parent == null) {
                    throw missing;
                }
                tail = tail == null ? name : name.resolve(tail);
                existing = parent;
            }
        }
    }
}
