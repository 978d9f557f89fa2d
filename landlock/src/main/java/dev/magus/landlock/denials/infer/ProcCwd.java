package dev.magus.landlock.denials.infer;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A live child's working directory, read from {@code /proc/<pid>/cwd}. A build script
 * {@code cd}s before it runs the tool that prints {@code cat: ../x: Permission denied}, so
 * the directory the run started in is the wrong base for a relative path. The readlink is
 * cheap but not free: {@link KernelDenials} asks it only for a line that names a relative path.
 *
 * <p>When the child has gone (or this is not Linux) the start directory is the first guess,
 * and its subdirectories ({@link #elsewhere}) the others: a relative path is then reported only
 * where the kernel can have refused it and the policy refuses exactly one of the guesses, or,
 * for a name to create that stays inside the start directory, where the run started.
 */
public record ProcCwd(long pid, Path start) implements DenialParser.Cwd {
    public ProcCwd {
        Objects.requireNonNull(start, "start");
    }

    /** How deep under the start directory {@link #elsewhere} looks, and how many directories at most. */
    static final int DEPTH = 3;
    static final int MAX_DIRS = 2000;

    @Override
    public Path get() {
        return live().orElse(start);
    }

    /**
     * The start directory's subdirectories (breadth first, {@value #DEPTH} levels, at most
     * {@value #MAX_DIRS}, links not followed) when the child's cwd cannot be read; else none.
     */
    @Override
    public List<Path> elsewhere() {
        if (live().isPresent()) {
            return List.of();
        }
        List<Path> out = new ArrayList<>();
        List<Path> level = List.of(start);
        for (int depth = 0; depth < DEPTH && !level.isEmpty() && out.size() < MAX_DIRS; depth++) {
            List<Path> next = new ArrayList<>();
            for (Path dir : level) {
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
                    for (Path e : entries) {
                        if (out.size() >= MAX_DIRS) {
                            break;
                        }
                        if (Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS)) {
                            out.add(e);
                            next.add(e);
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // unreadable: nothing under it to guess
                }
            }
            level = next;
        }
        return List.copyOf(out);
    }

    private Optional<Path> live() {
        if (pid <= 0) {
            return Optional.empty();
        }
        try {
            Path link = Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "cwd"));
            return link.isAbsolute() && !link.toString().endsWith(" (deleted)") ? Optional.of(link) : Optional.empty();
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return Optional.empty();
        }
    }
}
