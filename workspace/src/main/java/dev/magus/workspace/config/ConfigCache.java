package dev.magus.workspace.config;

import dev.magus.workspace.FileStamp;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each workspace's parsed {@code magus.yaml}, kept for as long as the file is the one read
 * ({@link FileStamp}: device, inode, size, mtime and ctime, of the name and of what a link
 * leads to). A server serving many runs of one workspace reads and parses its YAML once, and
 * again only when the file changes; a run then costs a stat, not a read, a helper thread
 * and a parse.
 *
 * <p>The stamp is taken before the read, so a change during the read leaves a stamp that no
 * longer matches and the next run reads again: a stale parse is never kept past a change. A
 * file that cannot be read or parsed is not kept either (the next run says why again).
 * Kept by its owner ({@link WorkspaceCaches}) for as long as it lives, bounded by
 * {@value #MAX_ENTRIES} workspaces (cleared when full: a server serving more than that
 * rereads, which is only slower).
 */
final class ConfigCache {
    static final int MAX_ENTRIES = 256;

    private record Entry(FileStamp stamp, ParsedConfig parsed) {
    }

    private final Map<Path, Entry> entries = new ConcurrentHashMap<>();

    /**
     * {@link WorkspaceConfig#parse(Path)} of {@code magusYaml}, from the cache while its stamp
     * holds: the file is read and parsed once for every section, and not at all while unchanged.
     *
     * @throws dev.magus.events.SandboxException as {@link WorkspaceConfig#parse(Path)}
     */
    ParsedConfig parse(Path magusYaml) {
        return parse(magusYaml, FileStamp.of(magusYaml));
    }

    /**
     * {@link #parse(Path)} with the file's stamp as the caller took it just now, before this
     * read ({@link FileStamp#ofAttributes}: the lstat that found the file): a stamp taken
     * before the read, as {@link #parse(Path)} takes it, so a change after it is a stamp that no
     * longer matches next time.
     */
    ParsedConfig parse(Path magusYaml, FileStamp stamp) {
        Entry e = entries.get(magusYaml);
        if (e != null && stamp.exists() && e.stamp().equals(stamp)) {
            return e.parsed();
        }
        ParsedConfig parsed = WorkspaceConfig.parse(magusYaml);
        if (stamp.exists()) {
            if (entries.size() >= MAX_ENTRIES) {
                entries.clear();
            }
            entries.put(magusYaml, new Entry(stamp, parsed));
        }
        return parsed;
    }
}
