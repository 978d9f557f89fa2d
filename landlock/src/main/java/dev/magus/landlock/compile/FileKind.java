package dev.magus.landlock.compile;

/** What a rule's path is on the host; it decides which rights the kernel accepts for it. */
public enum FileKind {
    DIRECTORY, DEVICE, FILE;

    /** From {@code st_mode}. */
    public static FileKind ofMode(int stMode) {
        int type = stMode & 0170000;
        if (type == 0040000) {
            return DIRECTORY;
        }
        if (type == 0020000 || type == 0060000) {
            return DEVICE;
        }
        return FILE;
    }
}
