package dev.magus.landlock.sys;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Parses what {@code read(2)} returns from a fanotify group with {@code FAN_REPORT_DFID_NAME}:
 * pure logic on bytes. Each event is a {@code struct fanotify_event_metadata} followed, up to
 * {@code event_len}, by info records (a header, then for the fid types an 8-byte {@code fsid}
 * and a {@code struct file_handle}, and for {@code DFID_NAME} a NUL-terminated name),
 * little-endian as on x86_64 and aarch64.
 *
 * <p>Anything that is not exactly that shape is {@link Batch#malformed()}, never skipped:
 * the caller then trusts none of the batch.
 */
public final class FanotifyRecords {
    private FanotifyRecords() {
    }

    public static final int METADATA_VERSION = 3;
    public static final long FAN_Q_OVERFLOW = 0x4000L;
    public static final long FAN_ONDIR = 0x40000000L;
    public static final int INFO_DFID_NAME = 2;
    public static final int INFO_DFID = 3;

    /** One directory handle: the filesystem's id and the kernel's {@code struct file_handle}. */
    public record Handle(long fsid, int type, byte[] bytes) {
        public Handle {
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Handle h && h.fsid == fsid && h.type == type && Arrays.equals(h.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(fsid) * 31 + type * 17 + Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return "Handle[fsid=" + Long.toHexString(fsid) + ", type=" + type + ", " + bytes.length + " bytes]";
        }
    }

    /**
     * One event: its mask and the directory it names, with the name in it ({@code "."} for the
     * directory's own event, or when the record carried no name; empty when the bytes are not a
     * name this JVM can decode).
     */
    public record Event(long mask, Optional<Handle> directory, String name) {
        public boolean overflow() {
            return (mask & FAN_Q_OVERFLOW) != 0;
        }
    }

    /** The events of one read, or why they cannot be trusted. */
    public record Batch(List<Event> events, Optional<String> malformed) {
        public Batch {
            events = List.copyOf(events);
        }
    }

    /** Parses the first {@code n} bytes of {@code buf}. */
    public static Batch parse(byte[] buf, int n) {
        List<Event> out = new ArrayList<>();
        int off = 0;
        while (off < n) {
            if (n - off < 24) {
                return bad(out, "a truncated event header at byte " + off);
            }
            int len = u32(buf, off);
            int vers = buf[off + 4] & 0xff;
            int metaLen = u16(buf, off + 6);
            if (vers != METADATA_VERSION) {
                return bad(out, "fanotify metadata version " + vers + ", not " + METADATA_VERSION);
            }
            if (len < 24 || metaLen < 24 || metaLen > len || len > n - off) {
                return bad(out, "an event of " + len + " bytes (metadata " + metaLen + ") at byte " + off + " of " + n);
            }
            long mask = u64(buf, off + 8);
            Optional<Handle> dir = Optional.empty();
            String name = ".";
            int at = off + metaLen;
            int end = off + len;
            while (at < end) {
                if (end - at < 4) {
                    return bad(out, "a truncated info record at byte " + at);
                }
                int type = buf[at] & 0xff;
                int recLen = u16(buf, at + 2);
                if (recLen < 4 || recLen > end - at) {
                    return bad(out, "an info record of " + recLen + " bytes at byte " + at);
                }
                if (type == INFO_DFID_NAME || type == INFO_DFID) {
                    if (recLen < 20) {
                        return bad(out, "a directory record of " + recLen + " bytes");
                    }
                    long fsid = u64(buf, at + 4);
                    int handleBytes = u32(buf, at + 12);
                    int handleType = s32(buf, at + 16);
                    int handleStart = at + 20;
                    if (handleBytes < 0 || handleBytes > recLen - 20) {
                        return bad(out, "a file handle of " + handleBytes + " bytes in a record of " + recLen);
                    }
                    if (dir.isPresent()) {
                        return bad(out, "two directory records in one event");
                    }
                    dir = Optional.of(new Handle(fsid, handleType,
                            Arrays.copyOfRange(buf, handleStart, handleStart + handleBytes)));
                    if (type == INFO_DFID_NAME) {
                        int nameStart = handleStart + handleBytes;
                        int nameEnd = nameStart;
                        int limit = at + recLen;
                        while (nameEnd < limit && buf[nameEnd] != 0) {
                            nameEnd++;
                        }
                        if (nameEnd == limit) {
                            return bad(out, "a name without its NUL");
                        }
                        String decoded = JvmNames.decode(buf, nameStart, nameEnd - nameStart);
                        name = decoded == null ? "" : decoded;
                    }
                }
                // Other records (the object's own fid, a pidfd, an error) say nothing of the directory.
                at += recLen;
            }
            Event e = new Event(mask, dir, name);
            if (dir.isEmpty() && !e.overflow()) {
                return bad(out, "an event (mask 0x" + Long.toHexString(mask) + ") without a directory record");
            }
            out.add(e);
            off += len;
        }
        return new Batch(out, Optional.empty());
    }

    private static Batch bad(List<Event> parsed, String why) {
        return new Batch(parsed, Optional.of(why));
    }

    static int u16(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8;
    }

    static int s32(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
    }

    /** An unsigned 32-bit field; one over {@link Integer#MAX_VALUE} reads as negative and is refused by the callers' checks. */
    static int u32(byte[] b, int at) {
        return s32(b, at);
    }

    static long u64(byte[] b, int at) {
        return (s32(b, at) & 0xffffffffL) | (long) s32(b, at + 4) << 32;
    }
}
