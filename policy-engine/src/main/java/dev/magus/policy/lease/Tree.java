package dev.magus.policy.lease;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * What the narrowing needs to know about the checkout's files, behind a seam so that the
 * planning itself stays pure: a test hands it a tree of its own.
 *
 * <p>Nothing here follows a symbolic link. A link is {@link Kind#OTHER}: never granted and
 * never walked through, because Landlock grants where a path leads, and a link in the checkout
 * can lead anywhere.
 */
public interface Tree {

    /** What a path is, without following a link in its last component. */
    enum Kind {
        MISSING, FILE, DIRECTORY, OTHER
    }

    Kind kind(Path absolute);

    /** The names in a directory; empty when it cannot be listed. */
    List<String> list(Path directory);

    /** The host's filesystem. */
    static Tree real() {
        return new Tree() {
            @Override
            public Kind kind(Path absolute) {
                try {
                    BasicFileAttributes a = Files.readAttributes(absolute, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    return a.isDirectory() ? Kind.DIRECTORY : a.isRegularFile() ? Kind.FILE : Kind.OTHER;
                } catch (IOException e) {
                    return Kind.MISSING;
                }
            }

            @Override
            public List<String> list(Path directory) {
                List<String> out = new ArrayList<>();
                try (DirectoryStream<Path> s = Files.newDirectoryStream(directory)) {
                    s.forEach(p -> out.add(p.getFileName().toString()));
                } catch (IOException e) {
                    // An unlistable directory yields no match: the kernel grants less, never more.
                }
                out.sort(null);
                return out;
            }
        };
    }
}
