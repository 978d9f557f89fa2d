package dev.magus.policy.path;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * A tree copied into a {@link MemoryFilesystem} resolves exactly as the same tree on disk, and
 * the seam's real implementation reports each entry as {@code lstat} does: what makes the exact
 * policy tests over memory say something about the host.
 */
class MemoryFilesystemPropertyTest {

    private static final String[] NAMES = {"a", "b", "c", "d"};

    @Property(tries = 100)
    void theWalkOverACopyInMemoryAgreesWithTheWalkOnDisk(@ForAll long seed) throws IOException {
        Random rnd = new Random(seed);
        Path base = Files.createTempDirectory("memfs-prop").toRealPath();
        Path root = Files.createDirectories(base.resolve("x/y/tree"));
        try {
            List<String> description = new ArrayList<>();
            List<Path> entries = RandomTree.build(rnd, NAMES, root, description);
            MemoryFilesystem memory = copy(base);
            for (Path e : entries) {
                assertThat(memory.lstat(e)).as("%s in %s", e, description).isEqualTo(Filesystem.real().lstat(e));
            }
            PathResolver onDisk = PathResolver.walking();
            PathResolver inMemory = PathResolver.walking(memory);
            List<Path> queries = new ArrayList<>(entries);
            for (int i = 0; i < 40; i++) {
                queries.add(Path.of(root + "/" + RandomTree.components(rnd, NAMES, 1 + rnd.nextInt(6))));
            }
            for (Path q : queries) {
                Traced disk = onDisk.trace(q);
                // Beyond the copied tree (climbing out of it with ..) the two hosts differ by design.
                if (disk.resolution().resolvedPath().filter(p -> p.startsWith(base)).isPresent()
                        && disk.links().stream().allMatch(l -> l.startsWith(base))) {
                    assertThat(inMemory.trace(q)).as("%s in %s", q, description).isEqualTo(disk);
                }
            }
        } finally {
            RandomTree.delete(base);
        }
    }

    /** {@code base} and everything beneath it, links as links, with {@code base}'s ancestors as directories. */
    private static MemoryFilesystem copy(Path base) throws IOException {
        MemoryFilesystem.Builder b = MemoryFilesystem.builder().dir(base);
        try (Stream<Path> walk = Files.walk(base)) {
            for (Path p : walk.toList()) {
                if (p.equals(base)) {
                    continue;
                }
                if (Files.isSymbolicLink(p)) {
                    b.link(p, Files.readSymbolicLink(p).toString());
                } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    b.dir(p);
                } else {
                    b.file(p, Files.readString(p));
                }
            }
        }
        return b.build();
    }
}
