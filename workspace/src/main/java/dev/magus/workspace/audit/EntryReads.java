package dev.magus.workspace.audit;

import dev.magus.policy.path.DirectoryReader.Stamp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Reads one control entry into a {@link Node}: a file's content and mode, a link's target and
 * the regular file it resolves to, a directory's mode. Never follows a link at the entry's end;
 * a file is opened with {@code O_NOFOLLOW}.
 */
final class EntryReads {
    /** An oversized control file changed this close to now is compared as changed: far more than a clock tick. */
    static final long RECENT_NANOS = 100_000_000L;

    private EntryReads() {
    }

    /** What {@code path} is, read without following a link at its end. */
    static Node node(Path path, Stamp st) {
        switch (st.kind()) {
            case DIRECTORY:
                return new Node.Directory(st.permissions());
            case LINK:
                try {
                    return new Node.Link(Files.readSymbolicLink(path).toString(), resolved(path));
                } catch (IOException e) {
                    return new Node.Other(st.mode());
                }
            case FILE:
                return readFile(path, st).<Node>map(c -> new Node.File(st.permissions(), c))
                        .orElseGet(() -> new Node.Other(st.mode()));
            default:
                return new Node.Other(st.mode());
        }
    }

    /**
     * What the link at {@code link} resolves to, when that is a regular file: the tool that
     * obeys the control name reads it through the link. Every link on the way is resolved
     * first, and the file is then read with {@code O_NOFOLLOW}, so a link swapped in between
     * makes the read fail (nothing recorded) rather than read elsewhere.
     */
    private static Optional<Node.Resolved> resolved(Path link) {
        try {
            Path real = link.toRealPath();
            Object mode = Files.getAttribute(real, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            int m = ((Number) mode).intValue();
            if ((m & Stamp.S_IFMT) != Stamp.S_IFREG) {
                return Optional.empty();
            }
            java.util.Map<String, Object> a = Files.readAttributes(real, "unix:dev,ino,size,lastModifiedTime,ctime",
                    LinkOption.NOFOLLOW_LINKS);
            Stamp st = new Stamp(((Number) a.get("dev")).longValue(), ((Number) a.get("ino")).longValue(), m, 1,
                    ((Number) a.get("size")).longValue(), nanos(a.get("lastModifiedTime")), nanos(a.get("ctime")));
            return readFile(real, st).map(c -> new Node.Resolved(real, m & 07777, c));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static long nanos(Object time) {
        return ((java.nio.file.attribute.FileTime) time).to(java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /**
     * The file's content, opened with {@code O_NOFOLLOW}; empty when it cannot be read (then
     * only its mode is compared). A file larger than {@link Node.Content#KEEP_LIMIT} by its
     * stamp is not read at all ({@link Node.Content#unread}), and no read goes past that limit
     * whatever the file says now: one that grew since its stamp is unread with an identity
     * nothing equals, so it counts as changed.
     */
    private static Optional<Node.Content> readFile(Path path, Stamp st) {
        int limit = Node.Content.KEEP_LIMIT;
        if (st.size() > limit) {
            // Times come from the kernel's coarse clock: a write within a tick of the last one may
            // leave them as they were. So a file changed that recently has no identity to compare.
            boolean recent = Math.max(st.mtimeNanos(), st.ctimeNanos()) > Scan.nowNanos() - RECENT_NANOS;
            return Optional.of(Node.Content.unread(st.size(), st.dev(), recent ? 0 : st.ino(), st.mtimeNanos(),
                    st.ctimeNanos()));
        }
        try (SeekableByteChannel ch = Files.newByteChannel(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            // Sized by the stamp, not by an fstat of the channel (a system call per control file
            // per pass): a file that grew since is read on into a bigger buffer below.
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(limit + 1L, Math.max(0, st.size()) + 1));
            while (ch.read(buf) > 0) {
                if (!buf.hasRemaining()) {
                    if (buf.capacity() > limit) {
                        return Optional.of(Node.Content.unread(Math.max(ch.size(), buf.capacity()), st.dev(), 0, 0, 0));
                    }
                    ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(limit + 1L, buf.capacity() * 2L));
                    buf.flip();
                    bigger.put(buf);
                    buf = bigger;
                }
            }
            byte[] bytes = new byte[buf.position()];
            buf.flip().get(bytes);
            return Optional.of(Node.Content.of(bytes));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
