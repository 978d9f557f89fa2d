package dev.magus.landlock.denials;

import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import dev.magus.landlock.denials.infer.KernelDenials;
import dev.magus.landlock.denials.infer.CommandLine;
import dev.magus.landlock.denials.infer.ProcCwd;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A run's kernel-layer denials from every source, as the orchestrator wires them: inferred
 * from the child's output always, exact from the audit stream when this process has one and
 * from the run's supervisor when it has one, merged so that each denial is reported once.
 */
public final class KernelDenialStream {

    /** How long a report waits for its twin from the other source. */
    public static final Duration DEFAULT_WINDOW = Duration.ofMillis(300);

    private KernelDenialStream() {
    }

    /**
     * @param runId  the run
     * @param pid    the pid magus spawned for it
     * @param cwd    the child's working directory
     * @param policy the run's binding-layer check
     * @param output the child's output lines; completes when the child's streams close
     * @param audit  the process's audit source, when it has one
     * @param window see {@link DenialMerger}; the audit stream of the run is closed one window
     *               after the output completes, as the kernel delivers records asynchronously
     */
    public static Flux<Diagnostic> forRun(String runId, long pid, Path cwd, DenialConfirmer policy,
            Flux<RunEvent.Output> output, Optional<AuditDenialSource> audit, Duration window) {
        return forRun(runId, pid, "", cwd, policy, output, audit, window, Schedulers.parallel());
    }

    /**
     * As above, for a child of magus's launcher whose Landlock domain carries {@code domainTag}
     * ({@code Child.domainTag()}): the audit records of its domain are the run's from the first.
     */
    public static Flux<Diagnostic> forRun(String runId, long pid, String domainTag, Path cwd, DenialConfirmer policy,
            Flux<RunEvent.Output> output, Optional<AuditDenialSource> audit, Duration window) {
        return forRun(runId, pid, domainTag, cwd, List.of(), policy, output, audit, window, Schedulers.parallel());
    }

    /**
     * As above, knowing the command magus started ({@code argv}): an inline script's line or
     * curl's {@code -o} tells an access the output leaves open.
     */
    public static Flux<Diagnostic> forRun(String runId, long pid, String domainTag, Path cwd, List<String> argv,
            DenialConfirmer policy, Flux<RunEvent.Output> output, Optional<AuditDenialSource> audit, Duration window) {
        return forRun(runId, pid, domainTag, cwd, argv, policy, output, audit, window, Schedulers.parallel());
    }

    static Flux<Diagnostic> forRun(String runId, long pid, String domainTag, Path cwd, DenialConfirmer policy,
            Flux<RunEvent.Output> output, Optional<AuditDenialSource> audit, Duration window, Scheduler timer) {
        return forRun(runId, pid, domainTag, cwd, List.of(), policy, output, audit, window, timer);
    }

    static Flux<Diagnostic> forRun(String runId, long pid, String domainTag, Path cwd, List<String> argv,
            DenialConfirmer policy, Flux<RunEvent.Output> output, Optional<AuditDenialSource> audit, Duration window,
            Scheduler timer) {
        return forRun(runId, pid, domainTag, cwd, argv, policy, output, audit, Optional.empty(), window, timer);
    }

    /**
     * As above, with the exact reports of the run's supervisor ({@code Supervisor.denials()}),
     * merged with the others like the audit stream's; {@code supervised} must complete once the
     * supervisor has ended.
     */
    public static Flux<Diagnostic> forRun(String runId, long pid, String domainTag, Path cwd, List<String> argv,
            DenialConfirmer policy, Flux<RunEvent.Output> output, Optional<AuditDenialSource> audit,
            Optional<Flux<Diagnostic>> supervised, Duration window) {
        return forRun(runId, pid, domainTag, cwd, argv, policy, output, audit, supervised, window, Schedulers.parallel());
    }

    static Flux<Diagnostic> forRun(String runId, long pid, String domainTag, Path cwd, List<String> argv,
            DenialConfirmer policy, Flux<RunEvent.Output> output, Optional<AuditDenialSource> audit,
            Optional<Flux<Diagnostic>> supervised, Duration window, Scheduler timer) {
        Objects.requireNonNull(window, "window");
        return Flux.defer(() -> {
            KernelDenials inferred = new KernelDenials(policy, cwd, new ProcCwd(pid, cwd), new CommandLine(argv));
            Flux<Diagnostic> fromOutput = output.concatMapIterable(inferred::accept);
            if (audit.isEmpty() && supervised.isEmpty()) {
                return fromOutput;
            }
            Flux<Diagnostic> exact = supervised.orElse(Flux.empty());
            Flux<Diagnostic> untracking = fromOutput;
            if (audit.isPresent()) {
                AuditDenialSource source = audit.get();
                exact = Flux.merge(source.track(runId, pid, domainTag, cwd, policy), exact);
                untracking = fromOutput.doFinally(signal ->
                        Mono.delay(window, timer).subscribe(t -> source.untrack(runId)));
            }
            return DenialMerger.merge(exact, untracking, window, timer);
        });
    }
}
