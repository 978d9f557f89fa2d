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

    @Override
    public int compare(Path a, Path b) {
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
