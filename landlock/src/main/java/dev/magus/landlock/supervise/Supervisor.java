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
 * filter hands it ({@link Call}). For each, while the caller waits, it reads the path or address
 * from the caller's memory and makes it absolute against the caller's working directory or
 * directory descriptor, checks the notification is still valid (the thread id was not reused
 * meanwhile), and lets the call go on ({@code SECCOMP_USER_NOTIF_FLAG_CONTINUE}): Landlock stays
 * the enforcement, the supervisor only observes. Then, off the caller's path, it asks the run's
 * policy about each new (operation, path) and reports the refused ones as exact denials with
 * {@code source=supervisor} ({@link #denials()}).
 *
 * <p>Fails closed: should the thread fail or be stopped ({@link #kill}) while the child runs, it
 * closes the listener, and the kernel fails every intercepted call from then on (ENOSYS); the
 * run is then supervised-failed ({@link #failure()}), never silently unsupervised. A supervisor
 * that falls behind makes the child wait, never skips a call.
 *
 * <p>Started before the spawn: the launch thread's own spawn is intercepted too.
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
    /** How many distinct questions are remembered before the memory starts over. */
    private static final int REMEMBERED = 1 << 16;
    private static final AtomicLong THREADS = new AtomicLong();

    private final Syscalls sys = Natives.require();
    private final Arch arch = Arch.host().orElseThrow(() -> new IllegalStateException("no seccomp on os.arch "
            + System.getProperty("os.arch")));
    private final Thread thread;
    private final Listener listener;
    private final Sinks.Many<Intercept> asked = Sinks.many().unicast().onBackpressureBuffer();
    private final Flux<Diagnostic> denials;
    private final AtomicLong answered = new AtomicLong();
    private volatile boolean closing;
    private volatile boolean killed;
    private volatile String failure;

    private Supervisor(DenialConfirmer policy, Path cwd) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(cwd, "cwd");
        this.thread = new Thread(this::run, "magus-supervisor-" + THREADS.incrementAndGet());
        this.thread.setDaemon(true);
        this.listener = new Listener(thread);
        SupervisedCheck check = new SupervisedCheck(policy, cwd);
        this.denials = asked.asFlux().publishOn(Schedulers.boundedElastic())
                .concatMapIterable(i -> check.check(i).stream().toList()).cache();
    }

    /**
     * A running supervisor, waiting for its listener; give {@link #listener()} to the launch.
     *
     * @param policy the run's check, as the inference asks it
     * @param cwd    the child's working directory
     */
    public static Supervisor start(DenialConfirmer policy, Path cwd) {
        Supervisor s = new Supervisor(policy, cwd);
        s.thread.start();
        return s;
    }

    /** What the launch thread hands the listener to. */
    public Listener listener() {
        return listener;
    }

    /** The refused accesses, each once; completes when the supervisor has ended. */
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
        LockSupport.unpark(thread);
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        int fd = -1;
        try {
            while ((fd = listener.fd()) < 0) {
                if (closing || killed) {
                    return;
                }
                LockSupport.parkNanos(this, POLL_NANOS);
            }
            serve(fd);
        } catch (Throwable t) {
            failure = t.getMessage() != null ? t.getMessage() : t.toString();
        } finally {
            if (fd >= 0) {
                sys.close(fd);
            }
            asked.tryEmitComplete();
        }
    }

    private void serve(int fd) {
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
        Memory notif = new Memory(notifBytes);
        Memory resp = new Memory(respBytes);
        Memory id = new Memory(8);
        Memory pollfd = new Memory(8);
        Memory timeout = new Memory(16);
        timeout.setLong(0, 0);
        timeout.setLong(8, POLL_NANOS);
        pollfd.setInt(0, fd);
        pollfd.setShort(4, POLLIN);
        Set<String> seen = new HashSet<>();
        try (ChildMemory memory = new ChildMemory()) {
            while (true) {
                if (killed) {
                    throw new IllegalStateException("the supervisor was stopped while the run went on");
                }
                if (closing) {
                    return;
                }
                pollfd.setShort(6, (short) 0);
                long r = sys.ppoll(Pointer.nativeValue(pollfd), 1, Pointer.nativeValue(timeout));
                if (r == 0 || r == -Errno.EINTR) {
                    continue;
                }
                if (r < 0) {
                    throw new IllegalStateException("ppoll on the listener: " + sys.describe((int) -r));
                }
                short revents = pollfd.getShort(6);
                if ((revents & POLLIN) != 0) {
                    notif.clear(notifBytes);
                    long got = sys.ioctl(fd, NOTIF_RECV, Pointer.nativeValue(notif));
                    if (got == -Errno.ENOENT || got == -Errno.EINTR) {
                        // The caller went away before it was read (a signal, its death).
                        continue;
                    }
                    if (got < 0) {
                        throw new IllegalStateException("SECCOMP_IOCTL_NOTIF_RECV: " + sys.describe((int) -got));
                    }
                    for (Intercept i : answer(fd, notif, resp, respBytes, id, memory)) {
                        if (seen.add(i.key())) {
                            if (seen.size() > REMEMBERED) {
                                seen.clear();
                            }
                            asked.tryEmitNext(i);
                        }
                    }
                } else if ((revents & (POLLHUP | POLLERR)) != 0) {
                    // No task uses the filter any more: the run's processes are all gone.
                    return;
                }
            }
        }
    }

    /** Reads one notification's call, checks it is still valid, lets it go on; what it asked. */
    private List<Intercept> answer(int fd, Memory notif, Memory resp, int respBytes, Memory id, ChildMemory memory) {
        long notifId = notif.getLong(0);
        int pid = notif.getInt(8);
        int nr = notif.getInt(16);
        List<Intercept> read = List.of();
        if (pid != listener.launchTid()) {
            long[] args = new long[6];
            for (int i = 0; i < 6; i++) {
                args[i] = notif.getLong(32 + 8L * i);
            }
            read = Call.of(arch, nr).map(c -> NotifiedCall.read(c, pid, args, memory)).orElse(List.of());
        }
        id.setLong(0, notifId);
        boolean valid = sys.ioctl(fd, NOTIF_ID_VALID, Pointer.nativeValue(id)) == 0;
        resp.clear(respBytes);
        resp.setLong(0, notifId);
        resp.setInt(20, FLAG_CONTINUE);
        long sent = sys.ioctl(fd, NOTIF_SEND, Pointer.nativeValue(resp));
        if (sent < 0 && sent != -Errno.ENOENT) {
            throw new IllegalStateException("SECCOMP_IOCTL_NOTIF_SEND: " + sys.describe((int) -sent));
        }
        answered.incrementAndGet();
        return valid ? read : List.of();
    }
}
