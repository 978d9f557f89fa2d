package dev.magus.workspace.audit;

import java.nio.file.Path;
import java.util.Comparator;

/**
 * Paths ordered name by name, so that everything beneath a directory comes right after it
 * ({@link Path#compareTo} compares the whole text, which puts {@code a-b} between {@code a}
 * and {@code a/x}). Folding and restoring in this order meet a directory before its contents.
 */
final class PathOrder implements Comparator<Path> {
    static final PathOrder INSTANCE = new PathOrder();

    private PathOrder() {
    }

    /**
     * Name by name. For two absolute paths this is their texts compared after the root, with the
     * end of a text before {@code '/'} and {@code '/'} before every other character: at the
     * first character where they differ, either both are inside one name (the names compare by
     * that character, as {@link String#compareTo} does), or one name ended where the other goes
     * on (the shorter name, a prefix of the longer, comes first), or one path ended (its names
     * are a prefix of the other's: it comes first). No {@code Path} or {@code String} is made.
     */
    @Override
    public int compare(Path a, Path b) {
        if (a.isAbsolute() && b.isAbsolute() && a.getRoot().toString().equals("/") && b.getRoot().toString().equals("/")) {
            return compareTexts(a.toString(), b.toString());
        }
        return byNames(a, b);
    }

    /** {@link #compare} of two absolute paths' texts ({@code "/..."}, no empty name, no trailing slash). */
    static int compareTexts(String x, String y) {
        int nx = x.length();
        int ny = y.length();
        int n = Math.min(nx, ny);
        for (int i = 1; i < n; i++) {
            char cx = x.charAt(i);
            char cy = y.charAt(i);
            if (cx != cy) {
                if (cx == '/') {
                    return -1;
                }
                if (cy == '/') {
                    return 1;
                }
                return cx - cy;
            }
        }
        return Integer.compare(nx, ny);
    }

    /** Name by name, with a {@code Path} and a {@code String} per name: any two paths. */
    static int byNames(Path a, Path b) {
        int n = Math.min(a.getNameCount(), b.getNameCount());
        for (int i = 0; i < n; i++) {
            int c = a.getName(i).toString().compareTo(b.getName(i).toString());
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.getNameCount(), b.getNameCount());
    }
}
