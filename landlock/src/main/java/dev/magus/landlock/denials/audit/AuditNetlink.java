package dev.magus.landlock.denials.audit;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The audit netlink socket (NETLINK_AUDIT), through JNA: status queries and the enabled
 * switch on a unicast socket, records from the read-log multicast group. The only native
 * code of the audit source.
 */
final class AuditNetlink implements AutoCloseable, AuditSwitch.Control {

    static final int AF_NETLINK = 16;
    static final int SOCK_RAW = 3;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int NETLINK_AUDIT = 9;
    static final int AUDIT_NLGRP_READLOG = 1;
    static final int AUDIT_GET = 1000;
    static final int AUDIT_SET = 1001;
    static final int AUDIT_STATUS_ENABLED = 1;
    static final int AUDIT_STATUS_BACKLOG_LIMIT = 4;
    static final int NLMSG_ERROR = 2;
    static final int NLM_F_REQUEST = 1;
    static final int NLM_F_ACK = 4;
    static final int SOL_SOCKET = 1;
    static final int SO_RCVBUF = 8;
    static final int SO_RCVBUFFORCE = 33;
    static final int SO_RCVTIMEO = 20;
    static final int EAGAIN = 11;
    static final int EINTR = 4;
    static final int ENOBUFS = 105;
    static final long SYS_LANDLOCK_CREATE_RULESET = 444;
    static final int LANDLOCK_CREATE_RULESET_VERSION = 1;

    interface CLib extends Library {
        int socket(int domain, int type, int protocol) throws LastErrorException;

        int bind(int fd, byte[] addr, int len) throws LastErrorException;

        long send(int fd, byte[] buf, long len, int flags) throws LastErrorException;

        long recv(int fd, byte[] buf, long len, int flags) throws LastErrorException;

        int setsockopt(int fd, int level, int name, byte[] value, int len) throws LastErrorException;

        int close(int fd) throws LastErrorException;

        long syscall(long number, Object... args) throws LastErrorException;
    }

    private static final class Holder {
        static final CLib C = Native.load("c", CLib.class);
    }

    static CLib c() {
        return Holder.C;
    }

    /** The kernel's audit status, the fields this source needs. */
    record Status(int enabled, int pid, int backlogLimit, long lost) {
    }

    /** One netlink message: its type and its text. */
    record Message(int type, String text) {
    }

    private final int fd;
    private int seq;
    /** Receives that found the socket's buffer overrun (ENOBUFS): records lost, how many unknown. */
    private final java.util.concurrent.atomic.AtomicLong overruns = new java.util.concurrent.atomic.AtomicLong();

    private AuditNetlink(int fd) {
        this.fd = fd;
    }

    /** A socket for requests; {@code readLog} also joins the read-log group (CAP_AUDIT_READ). */
    static AuditNetlink open(boolean readLog) {
        int fd = c().socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
        try {
            ByteBuffer addr = ByteBuffer.allocate(12).order(ByteOrder.nativeOrder());
            addr.putShort((short) AF_NETLINK).putShort((short) 0).putInt(0).putInt(readLog ? AUDIT_NLGRP_READLOG : 0);
            c().bind(fd, addr.array(), 12);
            if (readLog) {
                // A burst of denials must wait in the socket, not be dropped: past rmem_max when
                // privileged (SO_RCVBUFFORCE, CAP_NET_ADMIN), else as far as rmem_max allows.
                byte[] size = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(16 << 20).array();
                try {
                    c().setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, size, 4);
                } catch (LastErrorException e) {
                    c().setsockopt(fd, SOL_SOCKET, SO_RCVBUF, size, 4);
                }
            }
            // A receive timeout lets the reader notice close() without signals.
            ByteBuffer tv = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder()).putLong(0).putLong(200_000);
            c().setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, tv.array(), 16);
            return new AuditNetlink(fd);
        } catch (LastErrorException e) {
            c().close(fd);
            throw e;
        }
    }

    @Override
    public synchronized Status status() {
        send(AUDIT_GET, NLM_F_REQUEST, new byte[0]);
        for (int i = 0; i < 16; i++) {
            for (ByteBuffer m : receiveRaw()) {
                int type = Short.toUnsignedInt(m.getShort(4));
                if (type == NLMSG_ERROR) {
                    int err = m.getInt(16);
                    if (err != 0) {
                        throw new LastErrorException(-err);
                    }
                } else if (type == AUDIT_GET) {
                    // struct audit_status: mask, enabled, failure, pid, rate_limit, backlog_limit, lost
                    return new Status(m.getInt(16 + 4), m.getInt(16 + 12), m.getInt(16 + 20),
                            Integer.toUnsignedLong(m.getInt(16 + 24)));
                }
            }
        }
        throw new IllegalStateException("no reply to AUDIT_GET");
    }

    /** AUDIT_SET enabled (needs CAP_AUDIT_CONTROL); waits for the kernel's acknowledgement. */
    @Override
    public void setEnabled(int enabled) {
        ByteBuffer status = ByteBuffer.allocate(40).order(ByteOrder.nativeOrder());
        status.putInt(AUDIT_STATUS_ENABLED).putInt(enabled);
        set(status);
    }

    /** AUDIT_SET backlog_limit: how many records the kernel queues before it drops (and counts) them. */
    @Override
    public void setBacklogLimit(int limit) {
        ByteBuffer status = ByteBuffer.allocate(40).order(ByteOrder.nativeOrder());
        status.putInt(AUDIT_STATUS_BACKLOG_LIMIT).putInt(0).putInt(0).putInt(0).putInt(0).putInt(limit);
        set(status);
    }

    /** How many receives found the socket's buffer overrun. */
    long overruns() {
        return overruns.get();
    }

    private synchronized void set(ByteBuffer status) {
        send(AUDIT_SET, NLM_F_REQUEST | NLM_F_ACK, status.array());
        for (int i = 0; i < 16; i++) {
            for (ByteBuffer m : receiveRaw()) {
                if (Short.toUnsignedInt(m.getShort(4)) == NLMSG_ERROR) {
                    int err = m.getInt(16);
                    if (err != 0) {
                        throw new LastErrorException(-err);
                    }
                    return;
                }
            }
        }
        throw new IllegalStateException("no acknowledgement of AUDIT_SET");
    }

    /**
     * The messages of one receive; empty after the receive timeout. An overrun of the socket
     * buffer (ENOBUFS) loses records and is reported as an empty read so the reader goes on.
     */
    List<Message> receive() {
        List<Message> out = new ArrayList<>();
        for (ByteBuffer m : receiveRaw()) {
            int len = m.getInt(0);
            int type = Short.toUnsignedInt(m.getShort(4));
            int textLen = Math.max(0, len - 16);
            byte[] text = new byte[textLen];
            m.position(16);
            m.get(text);
            int end = textLen;
            while (end > 0 && (text[end - 1] == 0 || text[end - 1] == '\n')) {
                end--;
            }
            out.add(new Message(type, new String(text, 0, end, StandardCharsets.UTF_8)));
        }
        return out;
    }

    private List<ByteBuffer> receiveRaw() {
        byte[] buf = new byte[1 << 16];
        long n;
        try {
            n = c().recv(fd, buf, buf.length, 0);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == ENOBUFS) {
                overruns.incrementAndGet();
                return List.of();
            }
            if (e.getErrorCode() == EAGAIN || e.getErrorCode() == EINTR) {
                return List.of();
            }
            throw e;
        }
        List<ByteBuffer> out = new ArrayList<>();
        ByteBuffer all = ByteBuffer.wrap(buf, 0, (int) n).order(ByteOrder.nativeOrder());
        int off = 0;
        while (off + 16 <= n) {
            int len = all.getInt(off);
            if (len < 16 || off + len > n) {
                break;
            }
            out.add(ByteBuffer.wrap(buf, off, len).slice().order(ByteOrder.nativeOrder()));
            off += (len + 3) & ~3;
        }
        return out;
    }

    private void send(int type, int flags, byte[] payload) {
        ByteBuffer msg = ByteBuffer.allocate(16 + payload.length).order(ByteOrder.nativeOrder());
        msg.putInt(16 + payload.length).putShort((short) type).putShort((short) flags).putInt(++seq).putInt(0);
        msg.put(payload);
        c().send(fd, msg.array(), msg.capacity(), 0);
    }

    /** The running kernel's Landlock ABI, 0 when Landlock is unavailable. */
    static int landlockAbi() {
        try {
            long v = c().syscall(SYS_LANDLOCK_CREATE_RULESET, null, 0L, (long) LANDLOCK_CREATE_RULESET_VERSION);
            return (int) Math.max(0, v);
        } catch (LastErrorException | UnsatisfiedLinkError e) {
            return 0;
        }
    }

    @Override
    public void close() {
        c().close(fd);
    }
}
