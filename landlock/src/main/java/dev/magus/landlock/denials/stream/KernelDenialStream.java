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
     * Where a run's denials come from.
     *
     * @param child      the run's child
     * @param policy     the run's binding-layer check
     * @param output     the child's output lines; completes when the child's streams close
     * @param audit      the process's audit source, when it has one
     * @param supervised the exact reports of the run's supervisor ({@code Supervisor.denials()}),
     *                   merged like the audit stream's; must complete once the supervisor has ended
     * @param window     see {@link DenialMerger}; the audit stream of the run is closed one window
     *                   after the output completes, as the kernel delivers records asynchronously
     */
    public record Sources(RunChild child, DenialConfirmer policy, Flux<RunEvent.Output> output,
            Optional<AuditDenialSource> audit, Optional<Flux<Diagnostic>> supervised, Duration window) {
        public Sources {
            Objects.requireNonNull(child, "child");
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(output, "output");
            Objects.requireNonNull(audit, "audit");
            Objects.requireNonNull(supervised, "supervised");
            Objects.requireNonNull(window, "window");
        }
    }

    /** The run's denials from {@code sources}, each reported once. */
    public static Flux<Diagnostic> forRun(Sources sources) {
        return forRun(sources, Schedulers.parallel());
    }

    static Flux<Diagnostic> forRun(Sources sources, Scheduler timer) {
        RunChild child = sources.child();
        return Flux.defer(() -> {
            KernelDenials inferred = new KernelDenials(sources.policy(),
                    KernelDenials.Child.running(child.pid(), child.cwd(), new CommandLine(child.argv())));
            Flux<Diagnostic> fromOutput = sources.output().concatMapIterable(inferred::accept)
                    .concatWith(Flux.defer(() -> Flux.fromIterable(inferred.finish())));
            if (sources.audit().isEmpty() && sources.supervised().isEmpty()) {
                return fromOutput;
            }
            Flux<Diagnostic> exact = sources.supervised().orElse(Flux.empty());
            Flux<Diagnostic> untracking = fromOutput;
            if (sources.audit().isPresent()) {
                AuditDenialSource source = sources.audit().get();
                exact = Flux.merge(source.track(child.runId(), child.pid(), child.domainTag(), child.cwd(), sources.policy()),
                        exact);
                untracking = fromOutput.doFinally(signal ->
                        Mono.delay(sources.window(), timer).subscribe(t -> source.untrack(child.runId())));
            }
            return DenialMerger.merge(exact, untracking, sources.window(), timer);
        });
    }
}
