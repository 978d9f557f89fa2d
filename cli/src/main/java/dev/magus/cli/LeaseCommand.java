package dev.magus.cli;

import dev.magus.workspace.jobs.Job;
import dev.magus.workspace.jobs.JobId;
import dev.magus.workspace.jobs.JobStore;
import dev.magus.workspace.jobs.TrailEvent;
import dev.magus.workspace.lease.LeaseMarkers;
import dev.magus.workspace.lease.Marker;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code magus lease acquire JOB [DIR]} and {@code magus lease release [DIR]}: bind and unbind
 * a checkout (DIR, else the current directory, resolved) to a job. The marker lives under the
 * state dir, never in the checkout or the cache dir (see {@link LeaseMarkers}); both are recorded
 * on the job's trail. Only a live job can be leased; a refusal is one MGS2004 line and 125.
 */
@Command(name = "lease", description = "Binds a checkout to a job (its runs then write only the job's write paths), or unbinds it.")
final class LeaseCommand implements Runnable {
    @Spec
    CommandSpec spec;

    private final CliContext context;

    LeaseCommand() {
        this(CliContext.system());
    }

    LeaseCommand(CliContext context) {
        this.context = context;
    }

    /** Without a subcommand: a usage error (125), with the usage. */
    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    @Command(name = "acquire", description = "Binds DIR (default: the current directory) to the live job JOB.")
    int acquire(@Parameters(index = "0", paramLabel = "JOB") String jobText,
                @Parameters(index = "1", paramLabel = "DIR", arity = "0..1") Optional<Path> dir) {
        return JobCommand.guard(spec, out -> {
            JobId id = JobCommand.id(jobText, "JOB");
            JobStoreAccess a = JobStoreAccess.of(context.host().get());
            try (JobStore store = JobStore.open(a.state().jobsDb())) {
                Job job = store.find(id).orElseThrow(() -> JobCommand.refuse("no job " + id + " in " + store.file(), "JOB"));
                if (!job.live()) {
                    throw JobCommand.refuse("job " + id + " has ended (" + job.state().label() + "): only a live job can be leased", "JOB");
                }
                Marker m = new LeaseMarkers(a.state(), a.cacheDir()).acquire(directory(dir), id);
                store.record(id, new TrailEvent.LeaseAcquired(m.checkout()));
                out.println(m.checkout() + " leased to job " + id);
            }
            return 0;
        });
    }

    @Command(name = "release", description = "Unbinds DIR (default: the current directory) from its job.")
    int release(@Parameters(index = "0", paramLabel = "DIR", arity = "0..1") Optional<Path> dir) {
        return JobCommand.guard(spec, out -> {
            JobStoreAccess a = JobStoreAccess.of(context.host().get());
            Marker m = new LeaseMarkers(a.state(), a.cacheDir()).release(directory(dir));
            JobStore.openExisting(a.state().jobsDb()).ifPresent(s -> {
                try (s) {
                    if (s.find(m.job()).isPresent()) {
                        s.record(m.job(), new TrailEvent.LeaseReleased(m.checkout()));
                    }
                }
            });
            out.println(m.checkout() + " released from job " + m.job());
            return 0;
        });
    }

    private Path directory(Optional<Path> dir) {
        Path cwd = context.cwd().get();
        return dir.map(cwd::resolve).orElse(cwd);
    }
}
