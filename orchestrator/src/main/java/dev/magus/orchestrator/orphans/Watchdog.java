package dev.magus.orchestrator.orphans;

import dev.magus.landlock.launch.Child;
import dev.magus.policy.cleaner.SharedCleaner;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What kills a run's process group and removes its private temp dir when magus itself dies
 * without doing so ({@code kill -9}, the out-of-memory killer, a crash of the JVM): a POSIX
 * {@code sh} loop, one per owner of runs ({@link dev.magus.orchestrator.run.RunServices}),
 * reading from a pipe only magus writes which groups and dirs are live; at end-of-file it
 * SIGKILLs and removes what is still registered. The spawn waits for it ({@link #ready}).
 *
 * <p>Not {@code PR_SET_PDEATHSIG}: it fires when the spawning <em>thread</em> (a launch thread)
 * exits, reaches only the direct child, which may clear it, and removes no dir. The loop runs
 * unconfined in its own session and group, on magus's pipes and {@code /dev/null}, ignoring
 * SIGINT, SIGHUP, SIGQUIT, SIGTERM and the stop signals; magus's end is close-on-exec, so no
 * child holds it open. It misses a descendant that left the group, a child not yet registered,
 * and everything when killed with magus ({@link dev.magus.orchestrator.temp.StaleTemps} remains).
 */
public final class Watchdog implements AutoCloseable {
    /** How the loop shows in {@code ps}: its {@code argv[0]}. */
    public static final String NAME = "magus-watchdog";
    /** The running loop, shared with the cleaning action, which must not hold this watchdog. */
    private final AtomicReference<Child> running = new AtomicReference<>();
    /**
     * Ends the loop of a watchdog that became unreachable unclosed (an orchestrator dropped
     * without {@code close}) as {@link #close} would, and reaps it: otherwise the collector
     * closes the pipe alone and the loop's exit stays a zombie that its owner, the launcher,
     * never reaps.
     */
    private final Cleaner.Cleanable ending = SharedCleaner.CLEANER.register(this, end(running));
    private final Set<Long> groups = new LinkedHashSet<>();
    private final Set<String> dirs = new LinkedHashSet<>();
    private final Set<String> cgroups = new LinkedHashSet<>();
    private Child process;
    private OutputStream pipe;
    /** The loop being started off the caller's thread, until it runs (or could not be started). */
    private CompletableFuture<Void> starting;
    private String failure;
    private boolean closed;

    /** A watchdog whose loop starts with its owner's first run ({@link #start}), so an owner that runs nothing starts none. */
    public Watchdog() {
    }

    /**
     * Starts the loop on {@code executor} unless it runs or is starting: a run calls this first,
     * so that the spawn of {@code sh} (a millisecond, far more on a busy host) overlaps the run's
     * own stages instead of adding to them. Registrations made meanwhile are handed to the loop
     * when it is up.
     */
    public synchronized void start(Executor executor) {
        if (closed || pipe != null || starting != null) {
            return;
        }
        starting = CompletableFuture.runAsync(this::launch, executor);
    }

    /**
     * Waits, at most {@code limit}, for a start under way, so that a child spawned next is
     * known to a running loop; a run calls this right before its spawn.
     *
     * @return whether the loop runs; when not, {@link #failure()} says why
     */
    public boolean ready(Duration limit) {
        CompletableFuture<Void> s;
        synchronized (this) {
            s = starting;
        }
        if (s != null) {
            try {
                s.get(limit.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // said by failure(), or still starting: the registrations wait for it
            }
        }
        synchronized (this) {
            if (pipe == null && starting != null && failure == null) {
                failure = "the watchdog is still starting";
            }
            return pipe != null;
        }
    }

    /** Kills process group {@code pgid} with SIGKILL if magus dies while it is registered. */
    public synchronized void guardGroup(long pgid) {
        if (pgid <= 1) {
            throw new IllegalArgumentException("not a process group of a run: " + pgid);
        }
        groups.add(pgid);
        send(WatchdogLoop.guardGroup(pgid));
    }

    /** Forgets {@code pgid}: call once the group is killed and its leader reaped, so its id may be reused. */
    public synchronized void releaseGroup(long pgid) {
        if (groups.remove(pgid)) {
            send(WatchdogLoop.releaseGroup(pgid));
        }
    }

    /**
     * Removes {@code dir} (and everything beneath it) if magus dies while it is registered.
     * A name with a newline, which the line protocol cannot carry, is left to {@link dev.magus.orchestrator.temp.StaleTemps}.
     */
    public synchronized void guardDir(Path dir) {
        guard(dirs, dir, WatchdogLoop::guardDir);
    }

    /** Forgets {@code dir}: call once it is removed. */
    public synchronized void releaseDir(Path dir) {
        release(dirs, dir, WatchdogLoop::releaseDir);
    }

    /**
     * Freezes run cgroup {@code dir}, kills what is in it and removes it if magus dies while it
     * is registered. A name with a newline is left to the next magus's sweep.
     */
    public synchronized void guardCgroup(Path dir) {
        guard(cgroups, dir, WatchdogLoop::guardCgroup);
    }

    /** Forgets cgroup {@code dir}: call once it is ended. */
    public synchronized void releaseCgroup(Path dir) {
        release(cgroups, dir, WatchdogLoop::releaseCgroup);
    }

    private void guard(Set<String> set, Path path, java.util.function.UnaryOperator<String> line) {
        String p = path.toAbsolutePath().toString();
        if (p.indexOf('\n') >= 0 || p.indexOf('\0') >= 0) {
            return;
        }
        set.add(p);
        send(line.apply(p));
    }

    private void release(Set<String> set, Path path, java.util.function.UnaryOperator<String> line) {
        String p = path.toAbsolutePath().toString();
        if (set.remove(p)) {
            send(line.apply(p));
        }
    }

    /** Why the loop could not be started or reached, the last time it could not. */
    public synchronized Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    /** The loop's pid, while it runs. */
    public synchronized Optional<Long> pid() {
        return process == null ? Optional.empty() : Optional.of((long) process.pid());
    }

    /**
     * Closes magus's end of the pipe, exactly as magus's death would: the loop kills every group
     * and removes every dir still registered, then exits. A closed watchdog starts no new loop.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // Closing the loop's stdin (our end of the pipe) is what ends it.
        ending.clean();
        pipe = null;
    }

    /** Closes the loop's pipe, if it runs, and reaps it once it has ended; once. */
    private static Runnable end(AtomicReference<Child> running) {
        return () -> {
            Child loop = running.getAndSet(null);
            if (loop != null) {
                loop.close();
                reapOnceEnded(loop);
            }
        };
    }

    /**
     * Reaps a loop whose pipe is closed once it has ended (it first kills and removes what is
     * still registered), off the caller's thread: a closed watchdog leaves no zombie behind, and
     * the launcher, which owns the loop, is the one to reap it.
     */
    private static void reapOnceEnded(Child loop) {
        Thread t = new Thread(() -> {
            try {
                loop.waitFor();
            } catch (RuntimeException e) {
                // reaped already (the send path's poll), nothing left to wait for
            }
        }, NAME + "-reap");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Sends one line to a running loop. A loop that is gone (someone killed it) is started
     * again, here, and handed every live registration; while a start is under way the line
     * waits for it, since the start hands over everything registered by then.
     */
    private void send(String line) {
        if (closed) {
            return;
        }
        if (pipe != null) {
            try {
                pipe.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                pipe.flush();
                return;
            } catch (IOException e) {
                failure = "the watchdog " + process.pid() + " is gone (" + e.getMessage() + ")";
                running.set(null);
                process.close();
                process.poll();
                process = null;
                pipe = null;
            }
        }
        if (starting == null) {
            launch();
        }
    }

    /** Starts the loop and hands it everything registered by the time it runs. */
    private void launch() {
        Child c = WatchdogLoop.spawn(NAME, this::setFailure);
        synchronized (this) {
            starting = null;
            if (c == null) {
                return;
            }
            if (closed) {
                c.close();
                reapOnceEnded(c);
                return;
            }
            StringBuilder all = new StringBuilder();
            groups.forEach(g -> all.append(WatchdogLoop.guardGroup(g)).append('\n'));
            dirs.forEach(d -> all.append(WatchdogLoop.guardDir(d)).append('\n'));
            cgroups.forEach(d -> all.append(WatchdogLoop.guardCgroup(d)).append('\n'));
            try {
                c.stdin().write(all.toString().getBytes(StandardCharsets.UTF_8));
                c.stdin().flush();
            } catch (IOException e) {
                failure = "the watchdog " + c.pid() + " ended at once (" + e.getMessage() + ")";
                c.close();
                c.poll();
                return;
            }
            process = c;
            running.set(c);
            pipe = c.stdin();
            failure = null;
        }
    }

    private synchronized void setFailure(String why) {
        failure = why;
    }
}
