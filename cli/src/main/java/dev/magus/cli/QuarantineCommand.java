package dev.magus.cli;

import dev.magus.workspace.quarantine.Kept;
import dev.magus.workspace.quarantine.Manifest;
import dev.magus.workspace.quarantine.Quarantine;
import dev.magus.workspace.quarantine.Retention;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code magus quarantine list|show|restore|drop|prune}: what the after-run control-file
 * audit removed or put back, kept under the state dir ({@code quarantine/<run id>/}) before it
 * did so.
 *
 * <p>{@code show} numbers entries as the MGS2002 messages name them; {@code restore} gives a run's
 * version back byte for byte with its modes, refuses a path changed since the audit unless
 * {@code --force}, and exits 1 when one was refused; {@code prune} is what each run's audit does
 * after keeping something. A run id that is not one, or a run the quarantine does not hold, is
 * one MGS2004 line and 125.
 */
@Command(name = "quarantine", description = "Lists, shows, restores and drops what the control-file audit took out of a workspace.",
        subcommandsRepeatable = false)
final class QuarantineCommand implements Runnable {
    @Spec
    CommandSpec spec;

    private final CliContext context;

    QuarantineCommand() {
        this(CliContext.system());
    }

    QuarantineCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    private Quarantine quarantine() {
        return Quarantine.in(context.host().get().stateDir());
    }

    @Command(name = "list", description = "Lists each run whose audit kept something, oldest first.")
    int list() {
        return JobCommand.guard(spec, out -> {
            List<Manifest.Run> runs = io(() -> quarantine().runs());
            if (runs.isEmpty()) {
                out.println("the quarantine is empty (" + quarantine().root() + ")");
                return 0;
            }
            List<List<String>> rows = new ArrayList<>();
            rows.add(List.of("RUN", "KEPT", "ENTRIES", "BYTES"));
            for (Manifest.Run r : runs) {
                rows.add(List.of(r.runId(), r.created().toString(), Integer.toString(r.entries().size()),
                        Long.toString(r.bytes())));
            }
            Tables.align(rows, "").forEach(out::println);
            return 0;
        });
    }

    @Command(name = "show", description = "Shows what one run's audit kept, numbered.")
    int show(@Parameters(paramLabel = "RUN") String runId) {
        return JobCommand.guard(spec, out -> {
            Manifest.Run r = run(runId);
            List<List<String>> rows = new ArrayList<>();
            rows.add(List.of("N", "CODE", "CHANGE", "KEPT", "PATH", "WHAT"));
            for (Kept k : r.entries()) {
                rows.add(List.of(Integer.toString(k.index()), k.code(), k.change(), k.payload().word(),
                        k.path().toString(), k.what()));
            }
            Tables.align(rows, "").forEach(out::println);
            out.println("restore with: magus quarantine restore " + r.runId() + " [N]");
            return 0;
        });
    }

    @Command(name = "restore", description = "Gives the run's version back, byte for byte with its modes.")
    int restore(@Parameters(index = "0", paramLabel = "RUN") String runId,
                @Parameters(index = "1..*", arity = "0..*", paramLabel = "N", description = "Entries of the run (all without).") List<Integer> numbers,
                @Option(names = "--force", description = "Overwrites a path changed since the audit left it.") boolean force) {
        return JobCommand.guard(spec, out -> {
            Manifest.Run r = run(runId);
            List<Kept> chosen = new ArrayList<>();
            List<Integer> wanted = numbers == null ? List.of() : numbers;
            for (Kept k : r.entries()) {
                if (wanted.isEmpty() || wanted.contains(k.index())) {
                    chosen.add(k);
                }
            }
            for (Integer n : wanted) {
                if (r.entries().stream().noneMatch(k -> k.index() == n)) {
                    throw JobCommand.refuse("run " + runId + " has no entry " + n + " ('magus quarantine show " + runId
                            + "' lists them)", "N");
                }
            }
            PrintWriter err = spec.commandLine().getErr();
            int status = 0;
            for (Kept k : chosen) {
                Quarantine.Restored done = io(() -> quarantine().restore(k, force));
                if (done instanceof Quarantine.Restored.Refused f) {
                    err.println("magus: not restored " + k.name() + " " + k.path() + ": " + f.why());
                    status = 1;
                } else {
                    out.println("restored " + k.name() + " " + k.path());
                }
            }
            err.flush();
            return status;
        });
    }

    @Command(name = "drop", description = "Removes what runs' quarantines hold.")
    int drop(@Parameters(arity = "1..*", paramLabel = "RUN") List<String> runIds) {
        return JobCommand.guard(spec, out -> {
            for (String id : runIds) {
                run(id);
                io(() -> quarantine().drop(id));
                out.println("dropped " + id);
            }
            return 0;
        });
    }

    @Command(name = "prune", description = "Drops runs older than the age, then the oldest beyond the size.")
    int prune(@Option(names = "--max-age-days", paramLabel = "D", description = "Days a run is kept (default 30, or MAGUS_QUARANTINE_DAYS).") Optional<Integer> days,
              @Option(names = "--max-mb", paramLabel = "M", description = "MiB the quarantine holds (default 256, or MAGUS_QUARANTINE_MAX_MB).") Optional<Integer> mb) {
        return JobCommand.guard(spec, out -> {
            Retention base = Retention.of(context.host().get().env());
            if (days.isPresent() && days.get() < 0 || mb.isPresent() && mb.get() < 0) {
                throw JobCommand.refuse("--max-age-days and --max-mb take a number of 0 or more", "--max-mb");
            }
            Retention r = new Retention(days.map(d -> Duration.ofDays(d)).orElse(base.maxAge()),
                    mb.map(m -> m * 1024L * 1024L).orElse(base.maxBytes()));
            List<Quarantine.Pruned> pruned = io(() -> quarantine().prune(r, Instant.now(), Set.of()));
            for (Quarantine.Pruned p : pruned) {
                out.println("dropped " + p.runId() + " (" + p.bytes() + " bytes, kept since " + p.created() + "): " + p.why());
            }
            if (pruned.isEmpty()) {
                out.println("nothing to prune");
            }
            return 0;
        });
    }

    private Manifest.Run run(String runId) {
        Optional<Manifest.Run> r;
        try {
            r = quarantine().read(runId);
        } catch (IllegalArgumentException e) {
            throw JobCommand.refuse("'" + runId + "' is not a run id", "RUN");
        } catch (IOException e) {
            throw JobCommand.refuse("the quarantine cannot be read: " + e, "RUN");
        }
        return r.orElseThrow(() -> JobCommand.refuse("the quarantine holds nothing of run " + runId + " ("
                + quarantine().root() + ")", "RUN"));
    }

    private interface IoCall<T> {
        T call() throws IOException;
    }

    private static <T> T io(IoCall<T> call) {
        try {
            return call.call();
        } catch (IOException e) {
            throw JobCommand.refuse("the quarantine: " + e, "quarantine");
        }
    }
}
