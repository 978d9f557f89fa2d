package dev.magus.landlock.denials.stream;

import dev.magus.landlock.denials.DenialConfirmer;

import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import dev.magus.landlock.denials.infer.KernelDenials;
import dev.magus.landlock.denials.infer.CommandLine;
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
     * The child a run's denials are about.
     *
     * @param runId     the run
     * @param pid       the pid magus spawned for it
     * @param domainTag for a child of magus's launcher, what its Landlock domain carries
     *                  ({@code Child.domainTag()}): the audit records of its domain are the
     *                  run's from the first; empty otherwise
     * @param cwd       its working directory
     * @param argv      the command magus started (an inline script's line or curl's {@code -o}
     *                  tells an access the output leaves open)
     */
    public record RunChild(String runId, long pid, String domainTag, Path cwd, List<String> argv) {
        public RunChild {
            Objects.requireNonNull(runId, "runId");
            Objects.requireNonNull(domainTag, "domainTag");
            Objects.requireNonNull(cwd, "cwd");
            argv = List.copyOf(argv);
        }
    }

    /**
     * @param child  the run's child
     * @param policy the run's binding-layer check
     * @param output the child's output lines; completes when the child's streams close
     * @param audit  the process's audit source, when it has one
     * @param supervised the exact reports of the run's supervisor ({@code Supervisor.denials()}),
     *               merged like the audit stream's; must complete once the supervisor has ended
     * @param window see {@link DenialMerger}; the audit stream of the run is closed one window
     *               after the output completes, as the kernel delivers records asynchronously
     */
    public static Flux<Diagnostic> forRun(RunChild child, DenialConfirmer policy, Flux<RunEvent.Output> output,
            Optional<AuditDenialSource> audit, Optional<Flux<Diagnostic>> supervised, Duration window) {
        return forRun(child, policy, output, audit, supervised, window, Schedulers.parallel());
    }

    static Flux<Diagnostic> forRun(RunChild child, DenialConfirmer policy, Flux<RunEvent.Output> output,
            Optional<AuditDenialSource> audit, Optional<Flux<Diagnostic>> supervised, Duration window, Scheduler timer) {
        String runId = child.runId();
        long pid = child.pid();
        String domainTag = child.domainTag();
        Path cwd = child.cwd();
        List<String> argv = child.argv();
        Objects.requireNonNull(window, "window");
        return Flux.defer(() -> {
            KernelDenials inferred = new KernelDenials(policy, KernelDenials.Child.running(pid, cwd, new CommandLine(argv)));
            Flux<Diagnostic> fromOutput = output.concatMapIterable(inferred::accept)
                    .concatWith(Flux.defer(() -> Flux.fromIterable(inferred.finish())));
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
