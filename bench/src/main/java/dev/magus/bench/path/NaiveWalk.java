package dev.magus.bench.path;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The resolver one writes in an afternoon: clean the request lexically ({@link Path#normalize}),
 * then {@code lstat} each prefix, and when it is a link replace the prefix with the link's
 * target. It makes about the same system calls as a kernel-style walk but is wrong for
 * {@code link/..}: the cleaning removed {@code link/..} before any link was read, so it climbs
 * from the name that was written, not from where the link leads, which is why the
 * specification asks for the real one. Here only as a cost baseline.
 */
public final class NaiveWalk {
    private NaiveWalk() {
    }

    public static Path resolve(Path request) throws IOException {
        Path absolute = request.normalize();
        Path p = absolute.getRoot();
        int n = absolute.getNameCount();
        for (int i = 0; i < n; i++) {
            // An absolute path after normalize() holds no "." or "..": nothing here to step over.
            p = p.resolve(absolute.getName(i).toString());
            BasicFileAttributes a;
            try {
                a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException missing) {
                for (int j = i + 1; j < n; j++) {
                    p = p.resolve(absolute.getName(j).toString());
                }
                return p.normalize();
            }
            for (int hops = 0; a.isSymbolicLink() && hops < 40; hops++) {
                Path target = Files.readSymbolicLink(p);
                p = (target.isAbsolute() ? target : p.getParent().resolve(target)).normalize();
                try {
                    a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (NoSuchFileException dangling) {
                    break;
                }
            }
        }
        return p;
    }
}
