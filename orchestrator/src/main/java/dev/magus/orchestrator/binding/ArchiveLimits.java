package dev.magus.orchestrator.binding;

/**
 * How much one extraction may write: entries and bytes, counted as declared by the archive before
 * an entry is written and as read while it is written (a declared size may lie).
 *
 * @param maxEntries the most entries (files, directories and links)
 * @param maxBytes   the most bytes of file content in all
 */
public record ArchiveLimits(int maxEntries, long maxBytes) {
    /** 50 000 entries and 1 GiB. */
    public static final ArchiveLimits DEFAULT = new ArchiveLimits(50_000, 1L << 30);

    public ArchiveLimits {
        if (maxEntries < 1 || maxBytes < 0) {
            throw new IllegalArgumentException("limits must be positive: " + maxEntries + " entries, " + maxBytes + " bytes");
        }
    }
}
