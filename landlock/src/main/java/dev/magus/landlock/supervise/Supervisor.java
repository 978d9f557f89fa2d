package dev.magus.landlock.supervise;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.magus.events.Diagnostic;
import dev.magus.events.Operation;
import dev.magus.landlock.denials.DenialConfirmer;
import dev.magus.landlock.denials.stream.DenialMerger;
import dev.magus.landlock.seccomp.Arch;
import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * The supervisor of one run: a thread that answers every call the child's user-notification
 * filter hands it ({@link Call}). While the caller waits it reads the path or address from the
 * caller's memory, makes it absolute, and lets the call go on
 * ({@code SECCOMP_USER_NOTIF_FLAG_CONTINUE}); what it read is kept only if the notification is
 * still valid then (the thread id was not reused). Landlock stays the enforcement. Off the
 * caller's path, each new (operation, path) the policy refuses becomes an exact denial with
 * {@code source=supervisor} ({@link #denials()}). With an {@link Approval}, such an open is held
 * while its approver decides ({@link Approvals}): allowed, magus opens it and hands over the
 * descriptor; else EACCES. Fails closed: if the thread fails, is stopped ({@link #kill}) or
 * spends longer than {@link #STALL} on a call, it closes the listener, the kernel fails every
 * later intercepted call (ENOSYS), and the run is supervised-failed ({@link #failure()}); one
 * that falls behind makes the child wait, never skips a call. Started before the spawn, so the
 * launch thread's spawn is intercepted too.
 */
public final class Supervisor implements AutoCloseable {
    /** The {@code source} of every diagnostic the supervisor reports. */
    public static final String SOURCE = DenialMerger.SUPERVISOR_SOURCE;

    static final long NOTIF_RECV = 0xc0502100L;
    static final long NOTIF_SEND = 0xc0182101L;
    static final long NOTIF_ID_VALID = 0x40082102L;
    static final long NOTIF_SET_FLAGS = 0x40082104L;
    /** Linux 6.6: the caller and the supervisor wake each other on the waker's CPU. */
    static final long FD_SYNC_WAKE_UP = 1;
    static final int GET_NOTIF_SIZES = 3;
    static final int FLAG_CONTINUE = 1;
    private static final int NOTIF_BYTES = 80;
    private static final int RESP_BYTES = 24;
    private static final short POLLIN = 0x1;
    private static final short POLLERR = 0x8;
    private static final short POLLHUP = 0x10;
    /** How often a waiting supervisor looks whether it was closed. */
    private static final long POLL_NANOS = 50_000_000L;
    /**
     * How long new questions wait for the next call before they go to the checking thread, so
     * that a caller opening file after file wakes that thread once per {@link #BATCH}, not per file.
     */
    private static final long HOLD_NANOS = 1_000_000L;
    /** How many distinct questions are remembered before the memory starts over. */
    private static final int REMEMBERED = 1 << 16;
    /** At most this many new questions wait for the checking thread while calls keep coming. */
    private static final int BATCH = 64;
    private static final AtomicLong THREADS = new AtomicLong();
    /** How long the thread may take over one call before the run fails closed ({@link #watch}). */
    static final Duration STALL = Duration.ofSeconds(10);
    private static final long WATCH_MILLIS = 250;
    private volatile Disposable watch = () -> { };

    private final Syscalls sys = Natives.require();
    private final Arch arch = Arch.host().orElseThrow(() -> new IllegalStateException("no seccomp on os.arch "
            + System.getProperty("os.arch")));
    private final Call.Table calls = new Call.Table(arch);
    private final Thread thread;
    private final Listener listener;
    private final Sinks.Many<List<Intercept>> asked = Sinks.many().unicast().onBackpressureBuffer();
    /**
     * The new questions not yet handed to the policy: handed over once no call came for
     * {@link #HOLD_NANOS}, or {@link #BATCH} of them, so that a burst of calls wakes the checking
     * thread once rather than per call. Only the supervisor's thread touches it.
     */
    private List<Intercept> pending = new ArrayList<>();
    private final Sinks.Many<Diagnostic> decided = Sinks.many().unicast().onBackpressureBuffer();
    private final Approvals approvals;
    private final Flux<Diagnostic> denials;
    private final AtomicLong answered = new AtomicLong();
    private volatile boolean closing;
    private volatile boolean killed;
    private volatile String failure;
    /** When the call being answered on the thread was received ({@code System.nanoTime}); 0 between calls. */
    private volatile long answering;
    /** How long the thread may take over one call; a test shortens it. */
    volatile Duration stall = STALL;
    private volatile Responder responder;
    /** How often the thread waited on the listener; read once it has ended (a test of an idle run). */
    long waits;
    /** For the test of a stalled supervisor: runs before each call is answered. */
    volatile Runnable beforeAnswer = () -> { };

    private Supervisor(DenialConfirmer policy, Path cwd, Optional<Approval> approval) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(cwd, "cwd");
        this.thread = new Thread(this::run, "magus-supervisor-" + THREADS.incrementAndGet());
        this.thread.setDaemon(true);
        this.listener = new Listener(thread);
        SupervisedCheck check = new SupervisedCheck(policy, cwd);
        this.approvals = approval.map(a -> new Approvals(a, check, this::decided)).orElse(null);
        Flux<Diagnostic> checked = asked.asFlux().publishOn(Schedulers.boundedElastic())
                .concatMapIterable(check::refused);
        if (approvals != null) {
            checked = checked.map(d -> d.operation() == Operation.EXEC ? Approvals.unapprovable(d) : d);
        }
        this.denials = Flux.merge(checked, decided.asFlux()).cache();
    }

    /**
     * A running supervisor, waiting for its listener; give {@link #listener()} to the launch.
     *
     * @param policy the run's check, as the inference asks it
     * @param cwd    the child's working directory
     */
    public static Supervisor start(DenialConfirmer policy, Path cwd) {
        return start(policy, cwd, Optional.empty());
    }

    /**
     * As {@link #start(DenialConfirmer, Path)}; with an approval, each open the policy refuses
     * waits for the approver ({@link Approver}), and every decision is one of {@link #denials()}.
     */
    public static Supervisor start(DenialConfirmer policy, Path cwd, Optional<Approval> approval) {
        Supervisor s = new Supervisor(policy, cwd, approval);
        s.thread.start();
        s.watch = Schedulers.parallel().schedulePeriodically(s::watch, WATCH_MILLIS, WATCH_MILLIS, TimeUnit.MILLISECONDS);
        return s;
    }

    /**
     * Fails the run closed when the thread has spent longer than {@link #STALL} on one call (a
     * read of the caller's memory that blocks, a thread starved): the listener is let go of, so
     * every waiting call fails (ENOSYS) instead of hanging, and the run is supervised-failed.
     */
    private void watch() {
        long since = answering;
        Responder r = responder;
        if (since != 0 && r != null && System.nanoTime() - since > stall.toNanos()) {
            fail("the supervisor fell behind: a call waited more than " + stall.toMillis() + " ms for its answer");
            killed = true;
            r.abandon();
            watch.dispose();
        }
    }

    private void fail(String why) {
        synchronized (this) {
            if (failure == null) {
                failure = why;
            }
        }
    }

    private synchronized void decided(Diagnostic d) {
        decided.tryEmitNext(d);
    }

    /** What the launch thread hands the listener to. */
    public Listener listener() {
        return listener;
    }

    /**
     * The refused accesses, each once, and each approver's decision; completes when the
     * supervisor has ended.
     */
    public Flux<Diagnostic> denials() {
        return denials;
    }

    /** How many calls were answered. */
    public long answered() {
        return answered.get();
    }

    /** Why the supervisor stopped while its child could still call (then every later call failed). */
    public Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    /**
     * Stops answering as a dead supervisor would: the listener is closed and the child's
     * intercepted calls fail from then on. The run is supervised-failed.
     */
    public void kill() {
        killed = true;
        LockSupport.unpark(thread);
    }

    /**
     * Ends the supervisor once the run's processes are gone (a call still to come would fail),
     * and waits up to a second for its thread; {@link #denials()} completes after the checks
     * already asked.
     */
    @Override
    public void close() {
        closing = true;
        watch.dispose();
        LockSupport.unpark(thread);
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        Responder responder = null;
        try {
            int fd;
            while ((fd = listener.fd()) < 0) {
                if (closing || killed) {
                    return;
                }
                LockSupport.parkNanos(this, POLL_NANOS);
            }
            responder = new Responder(fd);
            this.responder = responder;
            serve(responder);
        } catch (Throwable t) {
            fail(t.getMessage() != null ? t.getMessage() : t.toString());
        } finally {
            watch.dispose();
            if (responder != null) {
                responder.close();
            }
            if (approvals != null) {
                approvals.stop();
            }
            handOver();
            asked.tryEmitComplete();
            synchronized (this) {
                decided.tryEmitComplete();
            }
        }
    }

    private void serve(Responder responder) {
        int fd = responder.fd();
        Memory sizes = new Memory(8);
        sizes.clear();
        int notifBytes = NOTIF_BYTES;
        int respBytes = RESP_BYTES;
        if (sys.seccomp(GET_NOTIF_SIZES, 0, Pointer.nativeValue(sizes)) == 0) {
            notifBytes = Math.max(NOTIF_BYTES, sizes.getShort(0) & 0xffff);
            respBytes = Math.max(RESP_BYTES, sizes.getShort(2) & 0xffff);
        }
        // Best effort: an older kernel wakes across CPUs, which costs more per call, nothing else.
        sys.ioctl(fd, NOTIF_SET_FLAGS, FD_SYNC_WAKE_UP);
        Buffers b = new Buffers(fd, new Memory(notifBytes), notifBytes, new Memory(respBytes), respBytes, new Memory(8),
                new Memory(8), new Memory(16), new Memory(16), new long[6], new HashSet<>());
        b.pollfd().setInt(0, fd);
        b.pollfd().setShort(4, POLLIN);
        try (ChildMemory memory = new ChildMemory()) {
            while (turn(responder, b, memory)) {
                // one call answered, or none waited
            }
        }
    }

    /** {@code timespec} set to {@code nanos}, anew for each ppoll: the kernel leaves the time not waited in it. */
    private static long timeout(Memory timespec, long nanos) {
        timespec.setLong(0, 0);
        timespec.setLong(8, nanos);
        return Pointer.nativeValue(timespec);
    }

    /** What {@link #turn} reuses from call to call: native buffers, and the questions asked. */
    private record Buffers(int fd, Memory notif, int notifBytes, Memory resp, int respBytes, Memory id, Memory pollfd,
            Memory sleep, Memory hold, long[] args, Set<Intercept.Key> seen) {
    }

    /**
     * Waits for one call and answers it; false once no task uses the filter any more. A method
     * of its own, called per call, so that it runs compiled rather than as an interpreted loop.
     */
    private boolean turn(Responder responder, Buffers b, ChildMemory memory) {
        if (killed) {
            throw new IllegalStateException("the supervisor was stopped while the run went on");
        }
        if (closing) {
            return false;
        }
        Memory pollfd = b.pollfd();
        long fds = Pointer.nativeValue(pollfd);
        pollfd.setShort(6, (short) 0);
        waits++;
        long r = pending.isEmpty() ? 0 : sys.ppoll(fds, 1, timeout(b.hold(), HOLD_NANOS));
        if (r == 0) {
            // No call came meanwhile: the questions go to the policy before this thread sleeps.
            handOver();
            pollfd.setShort(6, (short) 0);
            waits++;
            r = sys.ppoll(fds, 1, timeout(b.sleep(), POLL_NANOS));
        }
        if (r == 0 || r == -Errno.EINTR) {
            return true;
        }
        if (r < 0) {
            throw new IllegalStateException("ppoll on the listener: " + sys.describe((int) -r));
        }
        short revents = pollfd.getShort(6);
        if ((revents & POLLIN) == 0) {
            // POLLHUP or POLLERR: no task uses the filter any more, the run's processes are all gone.
            return (revents & (POLLHUP | POLLERR)) == 0;
        }
        Memory notif = b.notif();
        notif.clear(b.notifBytes());
        long got = sys.ioctl(b.fd(), NOTIF_RECV, Pointer.nativeValue(notif));
        if (got == -Errno.ENOENT || got == -Errno.EINTR) {
            // The caller went away before it was read (a signal, its death).
            return true;
        }
        if (got < 0) {
            throw new IllegalStateException("SECCOMP_IOCTL_NOTIF_RECV: " + sys.describe((int) -got));
        }
        answering = System.nanoTime();
        List<Intercept> read = answer(responder, b, memory);
        answering = 0;
        for (int k = 0; k < read.size(); k++) {
            Intercept i = read.get(k);
            if (b.seen().add(i.key())) {
                if (b.seen().size() > REMEMBERED) {
                    b.seen().clear();
                }
                pending.add(i);
                if (pending.size() >= BATCH) {
                    handOver();
                }
            }
        }
        return true;
    }

    private void handOver() {
        if (!pending.isEmpty()) {
            asked.tryEmitNext(pending);
            pending = new ArrayList<>();
        }
    }

    /**
     * Reads one notification's call and lets it go on (or, with an approver, holds an open for the
     * policy and the approver, once {@code NOTIF_ID_VALID} says it is still valid); what it asked,
     * none when the call was no longer valid.
     */
    private List<Intercept> answer(Responder responder, Buffers b, ChildMemory memory) {
        int fd = responder.fd();
        Memory notif = b.notif();
        long notifId = notif.getLong(0);
        int pid = notif.getInt(8);
        int nr = notif.getInt(16);
        beforeAnswer.run();
        List<Intercept> read = List.of();
        Call call = pid != listener.launchTid() ? calls.at(nr) : null;
        long[] args = b.args();
        if (call != null) {
            for (int i = 0; i < 6; i++) {
                args[i] = notif.getLong(32 + 8L * i);
            }
            read = NotifiedCall.read(call, pid, args, memory);
        }
        if (approvals != null && read.size() == 1) {
            Optional<NotifiedCall.OpenHow> how = NotifiedCall.how(call, pid, args, memory);
            Memory id = b.id();
            id.setLong(0, notifId);
            if (how.isPresent() && Approvals.askable(call, how.get())
                    && sys.ioctl(fd, NOTIF_ID_VALID, Pointer.nativeValue(id)) == 0) {
                // Answered later, off this thread; the kernel takes answers in any order.
                approvals.hold(responder, notifId, call, read.get(0), how.get());
                answered.incrementAndGet();
                return List.of();
            }
        }
        Memory resp = b.resp();
        resp.clear(b.respBytes());
        resp.setLong(0, notifId);
        resp.setInt(20, FLAG_CONTINUE);
        // The answer is taken only while the notification is valid, which makes it the check that
        // what was read is the caller's (the thread id was not reused meanwhile).
        long sent = sys.ioctl(fd, NOTIF_SEND, Pointer.nativeValue(resp));
        if (sent < 0 && sent != -Errno.ENOENT) {
            throw new IllegalStateException("SECCOMP_IOCTL_NOTIF_SEND: " + sys.describe((int) -sent));
        }
        answered.incrementAndGet();
        return sent == 0 ? read : List.of();
    }
}
