package dev.magus.landlock.supervise;

import dev.magus.events.Operation;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads what one intercepted call names from its caller, while the caller waits. */
final class NotifiedCall {
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    private static final int SOCKADDR_MAX = 128;

    private NotifiedCall() {
    }

    /**
     * The accesses {@code call} asks for: one per path it names, or its address; none for what
     * cannot be read (the caller died, an address that is not TCP's) or touches nothing (an
     * {@code O_PATH} open).
     */
    static List<Intercept> read(Call call, int pid, long[] args, ChildMemory memory) {
        if (call.isNetwork()) {
            return address(call, pid, args, memory).stream().toList();
        }
        long flags = 0;
        if (call == Call.OPENAT2) {
            Optional<OpenHow> how = how(call, pid, args, memory);
            if (how.isEmpty()) {
                return List.of();
            }
            flags = how.get().flags();
        } else if (call.flagsArg() >= 0) {
            flags = args[call.flagsArg()] & 0xffffffffL;
        }
        Operation op = call.operationOrNull(flags);
        if (op == null) {
            return List.of();
        }
        // Without lambdas or optionals: this runs while the caller waits, once per call.
        if (call.pathCount() == 1) {
            Intercept one = path(op, pid, args, 0, call, memory);
            return one == null ? List.of() : List.of(one);
        }
        List<Intercept> out = new ArrayList<>(call.pathCount());
        for (int i = 0; i < call.pathCount(); i++) {
            Intercept one = path(op, pid, args, i, call, memory);
            if (one != null) {
                out.add(one);
            }
        }
        return out;
    }

    private static Intercept path(Operation op, int pid, long[] args, int i, Call call, ChildMemory memory) {
        int dirfd = call.dirArg(i) < 0 ? ChildMemory.AT_FDCWD : (int) args[call.dirArg(i)];
        String p = memory.absolute(pid, args[call.pathArg(i)], dirfd);
        return p == null ? null : new Intercept(op, pid, p, "", -1);
    }

    /**
     * How an open asked to be opened: its flags, its mode and (openat2 only) its resolve flags;
     * {@code creat} is {@code O_CREAT|O_WRONLY|O_TRUNC}, a {@code mkdir} its mode alone. Empty for
     * a call that opens or makes nothing, or an {@code open_how} that cannot be read.
     */
    static Optional<OpenHow> how(Call call, int pid, long[] args, ChildMemory memory) {
        if (call == Call.CREAT) {
            return Optional.of(new OpenHow(Call.O_CREAT | Call.O_WRONLY | Call.O_TRUNC, args[1], 0));
        }
        if (call == Call.MKDIR || call == Call.MKDIRAT) {
            return Optional.of(new OpenHow(0, args[call == Call.MKDIR ? 1 : 2] & 07777, 0));
        }
        if (call.flagsArg() < 0) {
            return Optional.empty();
        }
        if (call == Call.OPENAT2) {
            // struct open_how: u64 flags, u64 mode, u64 resolve.
            return memory.bytes(pid, args[call.flagsArg()], 24).map(b -> {
                ByteBuffer how = ByteBuffer.wrap(b).order(ByteOrder.nativeOrder());
                return new OpenHow(how.getLong(0), how.getLong(8), how.getLong(16));
            });
        }
        return Optional.of(new OpenHow(args[call.flagsArg()] & 0xffffffffL, args[call.flagsArg() + 1] & 07777, 0));
    }

    /** An open's {@code flags}, {@code mode} and {@code openat2} {@code resolve} flags. */
    record OpenHow(long flags, long mode, long resolve) {
    }

    /**
     * {@code /proc/self} and {@code /proc/thread-self} as the caller meant them: magus, which
     * checks the path, would read its own there.
     */
    static String ownProc(int tid, String path) {
        String thread = "/proc/thread-self";
        String self = "/proc/self";
        if (!path.startsWith(self) && !path.startsWith(thread)) {
            return path;
        }
        if (path.equals(thread) || path.startsWith(thread + "/")) {
            return ChildMemory.tgid(tid).map(p -> "/proc/" + p + "/task/" + tid + path.substring(thread.length()))
                    .orElse(path);
        }
        if (path.equals(self) || path.startsWith(self + "/")) {
            return ChildMemory.tgid(tid).map(p -> "/proc/" + p + path.substring(self.length())).orElse(path);
        }
        return path;
    }

    static String join(String base, String path) {
        if (path.isEmpty()) {
            // AT_EMPTY_PATH: the descriptor itself.
            return base;
        }
        return base.endsWith("/") ? base + path : base + "/" + path;
    }

    private static Optional<Intercept> address(Call call, int pid, long[] args, ChildMemory memory) {
        int length = (int) Math.min(args[2] & 0xffffffffL, SOCKADDR_MAX);
        if (length < 4) {
            return Optional.empty();
        }
        return memory.bytes(pid, args[1], length).flatMap(b -> inet(b))
                .map(a -> new Intercept(call == Call.CONNECT ? Operation.CONNECT : Operation.BIND, pid, "",
                        a.host(), a.port()));
    }

    record Inet(String host, int port) {
    }

    /** A {@code sockaddr_in} or {@code sockaddr_in6}'s address and port; empty for another family. */
    static Optional<Inet> inet(byte[] sockaddr) {
        ByteBuffer b = ByteBuffer.wrap(sockaddr);
        int family = b.order(ByteOrder.nativeOrder()).getShort(0) & 0xffff;
        int port = b.order(ByteOrder.BIG_ENDIAN).getShort(2) & 0xffff;
        try {
            if (family == AF_INET && sockaddr.length >= 8) {
                byte[] a = java.util.Arrays.copyOfRange(sockaddr, 4, 8);
                return Optional.of(new Inet(java.net.InetAddress.getByAddress(a).getHostAddress(), port));
            }
            if (family == AF_INET6 && sockaddr.length >= 24) {
                byte[] a = java.util.Arrays.copyOfRange(sockaddr, 8, 24);
                return Optional.of(new Inet("[" + java.net.InetAddress.getByAddress(a).getHostAddress() + "]", port));
            }
        } catch (java.net.UnknownHostException e) {
            // a length the JDK refuses: not an address
        }
        return Optional.empty();
    }
}
