package dev.magus.landlock.denials.audit;

import dev.magus.events.DetailKey;
import com.sun.jna.LastErrorException;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.landlock.denials.DenialConfirmer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * Source 2: exact kernel denials from Landlock's audit records, for the runs magus spawned.
 *
 * <p>One per process: it joins the audit read-log multicast group (root or CAP_AUDIT_READ),
 * reads every record on a daemon thread, attributes them to runs by domain
 * ({@link DomainCorrelator}) and streams each run's denials ({@code layer=kernel},
 * {@code source=audit}) once per operation and path. Denials after {@code execve} are logged
 * only when the launcher restricts with {@code LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON}. Records
 * the kernel dropped or this socket overran are counted: such a run gets an MGS2014.
 *
 * <p>The host's audit settings change only when {@link AuditOptions#enableAudit()} says so; then
 * it joins the holders of the audit switch ({@link AuditSwitch}), put back by the last one.
 */
public final class AuditDenialSource implements AutoCloseable {

    private static final AtomicBoolean OPEN = new AtomicBoolean();

    private final AuditNetlink control;
    private final AuditNetlink readLog;
    /** The host's audit switch, when this source holds it. */
    private final Optional<AuditSwitch> auditSwitch;
    private final Thread reader;
    private final Thread restoreHook;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final DomainCorrelator correlator =
            new DomainCorrelator(ProcessHandle.current().pid(), AuditDenialSource::parentOf);
    private final Map<String, RunState> runs = new ConcurrentHashMap<>();

    private static final class RunState {
        final Sinks.Many<Diagnostic> sink = Sinks.many().unicast().onBackpressureBuffer();
        final Path cwd;
        final DenialConfirmer policy;
        final Map<String, Integer> seen = new java.util.HashMap<>();
        final long lostAtStart;
        final long overrunsAtStart;
        boolean done;

        RunState(Path cwd, DenialConfirmer policy, long lostAtStart, long overrunsAtStart) {
            this.cwd = cwd;
            this.policy = policy;
            this.lostAtStart = lostAtStart;
            this.overrunsAtStart = overrunsAtStart;
        }

        synchronized void emit(List<Diagnostic> diagnostics) {
            for (Diagnostic d : diagnostics) {
                if (done) {
                    continue;
                }
                // Each record is one denial: a repeat is still emitted, marked, to be counted.
                int n = seen.merge(d.operation() + " " + d.subject(), 1, Integer::sum);
                sink.tryEmitNext(n == 1 ? d : d.withDetail(DetailKey.REPEAT.key(),
                        Integer.toString(n)));
            }
        }

        synchronized void complete() {
            if (!done) {
                done = true;
                sink.tryEmitComplete();
            }
        }
    }

    private AuditDenialSource(AuditNetlink control, AuditNetlink readLog, Optional<AuditSwitch> auditSwitch) {
        this.control = control;
        this.readLog = readLog;
        this.auditSwitch = auditSwitch;
        this.reader = new Thread(this::readLoop, "magus-audit-reader");
        this.reader.setDaemon(true);
        this.restoreHook = new Thread(() -> {
            try {
                restore();
            } catch (RuntimeException e) {
                System.err.println("magus: could not switch kernel audit back off: " + e);
            }
        }, "magus-audit-restore");
        if (auditSwitch.isPresent()) {
            Runtime.getRuntime().addShutdownHook(restoreHook);
        }
        this.reader.start();
    }

    /** Whether this process could read Landlock's audit records, without changing anything. */
    public static AuditAvailability probe() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")) {
            return new AuditAvailability.Unavailable("Landlock audit records exist on Linux only");
        }
        int abi;
        try {
            abi = AuditNetlink.landlockAbi();
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            return new AuditAvailability.Unavailable("cannot call into libc through JNA: " + e.getMessage());
        }
        try {
            String cmdline = Files.readString(Path.of("/proc/cmdline"));
            if (List.of(cmdline.strip().split("\\s+")).contains("audit=0")) {
                return new AuditAvailability.Unavailable("the kernel was booted with audit=0");
            }
        } catch (IOException e) {
            // No /proc/cmdline to read: the netlink status below decides.
        }
        if (abi < 7) {
            return new AuditAvailability.Unavailable("Landlock ABI " + abi
                    + " logs no denials: audit records need ABI 7 (Linux 6.15)");
        }
        try (AuditNetlink control = AuditNetlink.open(false)) {
            int enabled = control.status().enabled();
            try (AuditNetlink group = AuditNetlink.open(true)) {
                return new AuditAvailability.Available(abi, enabled);
            } catch (LastErrorException e) {
                return new AuditAvailability.Unavailable("cannot join the audit read-log group (needs root or "
                        + "CAP_AUDIT_READ): errno " + e.getErrorCode());
            }
        } catch (LastErrorException e) {
            return new AuditAvailability.Unavailable("no audit netlink socket (kernel without audit, or not "
                    + "in the initial namespaces): errno " + e.getErrorCode());
        } catch (IllegalStateException e) {
            return new AuditAvailability.Unavailable(e.getMessage());
        }
    }

    /**
     * Subscribes to the audit stream. Fails with MGS2004 when the records cannot be read, or
     * when audit is off and {@code options} do not allow switching it on.
     */
    public static AuditDenialSource open(AuditOptions options) {
        AuditAvailability availability = probe();
        if (availability instanceof AuditAvailability.Unavailable u) {
            throw refused(u.reason());
        }
        AuditAvailability.Available a = (AuditAvailability.Available) availability;
        if (!a.producing() && !options.enableAudit()) {
            throw refused("audit is disabled on this host; magus switches it on only when explicitly asked to");
        }
        if (!OPEN.compareAndSet(false, true)) {
            throw new IllegalStateException("an AuditDenialSource is already open in this process");
        }
        AuditNetlink control = null;
        AuditNetlink readLog = null;
        try {
            control = AuditNetlink.open(false);
            readLog = AuditNetlink.open(true);
            Optional<AuditSwitch> held = Optional.empty();
            if (options.enableAudit()) {
                AuditSwitch s = AuditSwitch.forProcess(options.shareDir(), control);
                if (!s.acquire(true)) {
                    throw new IllegalStateException("the audit switch refused a holder that may enable it");
                }
                held = Optional.of(s);
            }
            return new AuditDenialSource(control, readLog, held);
        } catch (RuntimeException e) {
            if (readLog != null) {
                readLog.close();
            }
            if (control != null) {
                control.close();
            }
            OPEN.set(false);
            if (e instanceof LastErrorException le) {
                throw refused("cannot switch audit on (needs CAP_AUDIT_CONTROL): errno " + le.getErrorCode());
            }
            if (e instanceof java.io.UncheckedIOException io) {
                throw refused(io.getMessage() + ": " + io.getCause().getMessage());
            }
            throw e;
        }
    }

    private static SandboxException refused(String reason) {
        return new SandboxException(Diagnostic.of(Code.MGS2004, "Landlock audit records cannot be read: " + reason,
                "", Operation.NONE, Layer.KERNEL, AuditDiagnostics.SOURCE));
    }

    /**
     * Starts attributing denials to a run. Call it right after spawning: records that arrive
     * first wait for it.
     *
     * @param runId  the run
     * @param pid    the pid magus spawned (the launcher, which creates the run's domain)
     * @param cwd    the child's working directory
     * @param policy the run's policy check, for the code, message and declaration to add
     * @return the run's exact denials, live; completes on {@link #untrack} or {@link #close}
     */
    public Flux<Diagnostic> track(String runId, long pid, Path cwd, DenialConfirmer policy) {
        return track(runId, pid, "", cwd, policy);
    }

    /**
     * {@link #track(String, long, Path, DenialConfirmer)} for a child spawned by magus's
     * launcher, whose domain carries {@code domainTag} ({@code Child.domainTag()}): its records
     * are then the run's from the first one, even under concurrent runs.
     */
    public Flux<Diagnostic> track(String runId, long pid, String domainTag, Path cwd, DenialConfirmer policy) {
        Objects.requireNonNull(runId, "runId");
        RunState run = new RunState(Objects.requireNonNull(cwd, "cwd"), Objects.requireNonNull(policy, "policy"),
                lost(), readLog.overruns());
        if (runs.putIfAbsent(runId, run) != null) {
            throw new IllegalArgumentException("run already tracked: " + runId);
        }
        if (closed.get()) {
            run.complete();
        } else {
            List<DomainCorrelator.Attributed> waiting;
            synchronized (correlator) {
                waiting = correlator.register(runId, pid, domainTag);
            }
            waiting.forEach(this::dispatch);
        }
        return run.sink.asFlux();
    }

    /**
     * Stops attributing denials to a run and completes its stream. The kernel hands records
     * to the reader asynchronously, so call it a moment after the child exits (the merge
     * window is a good moment).
     */
    public void untrack(String runId) {
        synchronized (correlator) {
            correlator.unregister(runId);
        }
        RunState run = runs.remove(runId);
        if (run != null) {
            long lost = Math.max(0, lost() - run.lostAtStart);
            long overruns = readLog.overruns() - run.overrunsAtStart;
            if (lost > 0 || overruns > 0) {
                run.emit(List.of(AuditDiagnostics.lost(lost, overruns)));
            }
            run.complete();
        }
    }

    /** The kernel's count of audit records it dropped; 0 when it cannot be read. */
    private long lost() {
        try {
            return control.status().lost();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private final java.util.concurrent.atomic.AtomicReference<RuntimeException> failure =
            new java.util.concurrent.atomic.AtomicReference<>();

    /** Why the reader stopped before close, if it did. */
    public Optional<RuntimeException> failure() {
        return Optional.ofNullable(failure.get());
    }

    private void readLoop() {
        while (!closed.get()) {
            List<AuditNetlink.Message> messages;
            try {
                messages = readLog.receive();
            } catch (LastErrorException e) {
                // A socket that fails other than by timeout or overrun will not recover: stop,
                // end the runs' streams, and keep the cause for failure().
                if (!closed.get()) {
                    failure.set(e);
                    runs.values().forEach(RunState::complete);
                }
                return;
            }
            for (AuditNetlink.Message m : messages) {
                Optional<AuditRecord> record = AuditRecordParser.parse(m.type(), m.text());
                if (record.isEmpty()) {
                    continue;
                }
                List<DomainCorrelator.Attributed> attributed;
                synchronized (correlator) {
                    attributed = correlator.accept(record.get());
                }
                attributed.forEach(this::dispatch);
            }
        }
    }

    private void dispatch(DomainCorrelator.Attributed a) {
        RunState run = runs.get(a.runId());
        if (run != null) {
            run.emit(AuditDiagnostics.of(a.access(), run.cwd, run.policy));
        }
    }

    /** The parent of a live process, from {@code /proc/<pid>/stat}. */
    static OptionalLong parentOf(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return OptionalLong.of(Long.parseLong(rest[1]));
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    private final AtomicBoolean restored = new AtomicBoolean();

    private void restore() {
        if (auditSwitch.isPresent() && restored.compareAndSet(false, true)) {
            auditSwitch.get().release();
        }
    }

    /** Stops reading, completes every run's stream and restores audit if this source switched it on. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            reader.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        runs.values().forEach(RunState::complete);
        runs.clear();
        try {
            restore();
            if (auditSwitch.isPresent()) {
                try {
                    Runtime.getRuntime().removeShutdownHook(restoreHook);
                } catch (IllegalStateException e) {
                    // Already shutting down: the hook runs restore() again, harmlessly.
                }
            }
        } finally {
            readLog.close();
            control.close();
            OPEN.set(false);
        }
    }
}
