package dev.magus.workspace.audit;

import dev.magus.policy.path.DirectoryReader;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;

/** The installed {@link DirectoryReader} (landlock's {@code getdents64} one), else {@link #java()}. */
public final class Readers {
    private Readers() {
    }

    private static final class Installed {
        static final DirectoryReader READER = ServiceLoader.load(DirectoryReader.class, Readers.class.getClassLoader())
                .stream().map(ServiceLoader.Provider::get).filter(DirectoryReader::available)
                .findFirst().orElseGet(Readers::java);
    }

    /** What the audit uses by default. */
    public static DirectoryReader installed() {
        return Installed.READER;
    }

    /**
     * Whether the installed reader's native {@code lstat} reports ENOENT for {@code path}:
     * nothing of that name, for sure, where the JDK would throw {@code NoSuchFileException}
     * (two exceptions, each filling its stack trace through a deep chain). False for anything
     * else (found, ENOTDIR, another error, a name the reader cannot pass to the kernel
     * unchanged, the pure-Java reader): the caller then asks the JDK.
     */
    public static boolean noEntry(Path path) {
        return path.isAbsolute() && path.getFileSystem() == DEFAULT
                && installed().presence(path.toString()) == DirectoryReader.Presence.NO_ENTRY;
    }

    private static final java.nio.file.FileSystem DEFAULT = java.nio.file.FileSystems.getDefault();

    /**
     * The pure-Java reader: a {@link DirectoryStream} for the names and an {@code lstat} per
     * entry for its kind, since Java gives no {@code d_type}. Correct everywhere, and an order
     * of magnitude slower on a large tree than the native reader.
     */
    public static DirectoryReader java() {
        return JavaReader.INSTANCE;
    }

    private enum JavaReader implements DirectoryReader {
        INSTANCE;

        private static final String ATTRIBUTES = "unix:dev,ino,mode,nlink,size,lastModifiedTime,ctime";

        @Override
        public Optional<Stamp> stat(String absolutePath) {
            try {
                Map<String, Object> a = Files.readAttributes(Path.of(absolutePath), ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                return Optional.of(new Stamp(((Number) a.get("dev")).longValue(), ((Number) a.get("ino")).longValue(),
                        ((Number) a.get("mode")).intValue(), ((Number) a.get("nlink")).longValue(),
                        ((Number) a.get("size")).longValue(), nanos(a.get("lastModifiedTime")), nanos(a.get("ctime"))));
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }

        @Override
        public Optional<Listing> list(String absolutePath) {
            Optional<Stamp> stamp = stat(absolutePath);
            if (stamp.isEmpty() || stamp.get().kind() != Kind.DIRECTORY) {
                return Optional.empty();
            }
            List<Entry> entries = new ArrayList<>();
            Path dir = Path.of(absolutePath);
            try (DirectoryStream<Path> names = Files.newDirectoryStream(dir)) {
                for (Path p : names) {
                    Optional<Stamp> st = stat(p.toString());
                    if (st.isEmpty() && p.getFileName().toString().indexOf('\uFFFD') >= 0) {
                        // A name the JVM's file-name charset cannot decode (its text does not
                        // name the entry again): not listed faithfully, so not listed at all, as
                        // the native reader does (GetdentsReader): the audit holds the directory unaudited.
                        return Optional.empty();
                    }
                    entries.add(new Entry(p.getFileName().toString(), st.map(Stamp::kind).orElse(Kind.UNKNOWN),
                            st.map(Stamp::ino).orElse(0L)));
                }
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
            return Optional.of(new Listing(entries));
        }

        private static long nanos(Object time) {
            return ((FileTime) time).to(TimeUnit.NANOSECONDS);
        }
    }
}
