package dev.magus.policy.path;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An immutable tree of directories, regular files, other files (devices, fifos) and symbolic
 * links, held in memory: the host of an exact policy test. The same tree on any machine gives
 * the same rules, in the same order, with the same notes, where a temp dir on the real host
 * would depend on what {@code /lib64} or {@code /dev/tty} happen to be there.
 *
 * <pre>{@code
 * Filesystem fs = MemoryFilesystem.builder()
 *         .dir("/usr/bin").link("/bin", "usr/bin")
 *         .file("/ws/.git", "gitdir: ../repo/.git/worktrees/ws\n")
 *         .device("/dev/null")
 *         .build();
 * }</pre>
 *
 * <p>Every ancestor of an entry is a directory, made as needed; {@code /} always exists. It
 * has no {@link KernelLookup}, so every resolution walks.
 */
public final class MemoryFilesystem implements Filesystem {
    private final Map<Path, Entry> entries;
    private final Map<Path, byte[]> contents;

    private MemoryFilesystem(Map<Path, Entry> entries, Map<Path, byte[]> contents) {
        this.entries = Map.copyOf(entries);
        this.contents = Map.copyOf(contents);
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Entry lstat(Path path) {
        return entries.getOrDefault(path, Entry.MISSING);
    }

    @Override
    public Optional<String> read(Path file, int maxBytes) {
        byte[] text = contents.get(file);
        return text == null ? Optional.empty()
                : Optional.of(new String(Arrays.copyOf(text, Math.min(maxBytes, text.length)), StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("MemoryFilesystem");
        new TreeMap<>(entries).forEach((p, e) -> sb.append("\n  ").append(p).append(' ').append(e));
        return sb.toString();
    }

    /** Builds the tree one entry at a time; an entry is made once, and never beneath a non-directory. */
    public static final class Builder {
        private final Map<Path, Entry> entries = new HashMap<>();
        private final Map<Path, byte[]> contents = new HashMap<>();

        private Builder() {
            entries.put(Path.of("/"), Entry.DIRECTORY);
        }

        /** Directories at each of {@code paths} and every ancestor (as {@code mkdir -p}). */
        public Builder dir(String... paths) {
            for (String p : paths) {
                mkdirs(Path.of(p));
            }
            return this;
        }

        public Builder dir(Path... paths) {
            for (Path p : paths) {
                mkdirs(p);
            }
            return this;
        }

        private void mkdirs(Path path) {
            Path p = absolute(path);
            Entry there = entries.get(p);
            if (there == null) {
                parents(p);
                entries.put(p, Entry.DIRECTORY);
            } else if (there != Entry.DIRECTORY) {
                throw new IllegalArgumentException(p + " is already " + there);
            }
        }

        /** A regular file holding {@code text}. */
        public Builder file(String path, String text) {
            return file(Path.of(path), text);
        }

        public Builder file(Path path, String text) {
            Path p = add(path, Entry.FILE);
            contents.put(p, text.getBytes(StandardCharsets.UTF_8));
            return this;
        }

        /** An empty regular file at each of {@code paths}. */
        public Builder file(String... paths) {
            for (String p : paths) {
                file(Path.of(p), "");
            }
            return this;
        }

        /** A device, fifo or socket at each of {@code paths}: it exists, holds no text, has nothing beneath it. */
        public Builder device(String... paths) {
            for (String p : paths) {
                add(Path.of(p), Entry.OTHER);
            }
            return this;
        }

        /** A symbolic link at {@code path} to {@code target}, as written (relative to the link's directory, or absolute). */
        public Builder link(String path, String target) {
            return link(Path.of(path), target);
        }

        public Builder link(Path path, String target) {
            add(path, Entry.link(target));
            return this;
        }

        public Builder link(Path path, Path target) {
            return link(path, target.toString());
        }

        public MemoryFilesystem build() {
            return new MemoryFilesystem(entries, contents);
        }

        private Path add(Path path, Entry entry) {
            Path p = absolute(path);
            if (entries.containsKey(p)) {
                throw new IllegalArgumentException(p + " is already " + entries.get(p));
            }
            parents(p);
            entries.put(p, entry);
            return p;
        }

        private void parents(Path p) {
            Path parent = p.getParent();
            if (parent != null) {
                mkdirs(parent);
            }
        }

        private static Path absolute(Path p) {
            if (!p.isAbsolute() || !p.normalize().equals(p)) {
                throw new IllegalArgumentException("an in-memory entry needs an absolute, normalized path: " + p);
            }
            return p;
        }
    }
}
