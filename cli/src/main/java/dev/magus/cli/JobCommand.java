package dev.magus.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.policy.lease.WriteGlob;
import dev.magus.workspace.jobs.Job;
import dev.magus.workspace.jobs.JobId;
import dev.magus.workspace.jobs.JobStore;
import dev.magus.workspace.jobs.TrailEntry;
import dev.magus.workspace.jobs.TrailEvent;
import dev.magus.workspace.lease.LeaseMarkers;
import dev.magus.workspace.lease.Marker;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code magus job add|list|show|end}: the job store that leases narrow by.
 *
 * <ul>
 *   <li>{@code add [--parent ID] --write GLOB…} prints the new job's id alone, for scripts;</li>
 *   <li>{@code list [--json]}, {@code show ID [--json]} (with its trail and its leases);</li>
 *   <li>{@code end ID [--failed]}.</li>
 * </ul>
 * {@code --json} prints, for {@code list}, an array of jobs and, for {@code show}, one job with
 * {@code trail} and {@code leases}:
 * <pre>
 * {"id": 2, "parent": 1 | null, "state": "live" | "done" | "failed",
 *  "created": "2026-01-02T03:04:05Z", "ended": "..." | null, "write_paths": ["src/**"],
 *  "trail": [{"seq": 3, "at": "...", "kind": "sandbox_denial", "path": "/abs", "operation": "write",
 *             "code": "MGS2002", "layer": "kernel", "run": "RUN_ID", "source": "inferred"},
 *            {"kind": "ended", "state": "done", ...},
 *            {"kind": "run_started", "run": "RUN_ID", "path": "/abs/dir", "command": "make test"},
 *            {"kind": "run_ended", "run": "RUN_ID", "status": 0, "omitted": 0}, ...],
 *  "leases": ["/abs/checkout", ...]}
 * </pre>
 * A store that cannot be used, an unknown job or a bad glob prints one MGS2004 line naming the
 * file or the flag and exits 125; reading commands never create the store.
 */
@Command(name = "job", description = "Adds, lists, shows and ends the jobs that leases narrow a checkout's write grant by.",
        subcommandsRepeatable = false)
final class JobCommand implements Runnable {
    @Spec
    CommandSpec spec;

    private final CliContext context;

    JobCommand() {
        this(CliContext.system());
    }

    JobCommand(CliContext context) {
        this.context = context;
    }

    /** Without a subcommand: a usage error (125), with the usage. */
    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    @Command(name = "add", description = "Adds a live job and prints its id.")
    int add(@Option(names = "--parent", paramLabel = "ID", description = "The job that delegates this one (a job without one is never narrowed).") Optional<String> parent,
            @Option(names = "--write", paramLabel = "GLOB", required = true, arity = "1..*",
                    description = "A path glob relative to the checkout root the job may write (* ? and whole-component **).") List<String> write) {
        return guarded(out -> {
            List<WriteGlob> globs = write.stream().map(g -> WriteGlob.parse(g, "--write")).toList();
            Optional<JobId> p = parent.map(t -> id(t, "--parent"));
            try (JobStore store = JobStore.open(access().state().jobsDb())) {
                out.println(store.add(p, globs).id());
            }
            return 0;
        });
    }

    @Command(name = "list", description = "Lists every job, oldest first.")
    int list(@Option(names = "--json", description = "Prints a JSON array (schema in the class documentation).") boolean json) {
        return guarded(out -> {
            List<Job> jobs = JobStore.openExisting(access().state().jobsDb()).map(s -> {
                try (s) {
                    return s.list();
                }
            }).orElse(List.of());
            if (json) {
                ArrayNode array = MAPPER.createArrayNode();
                jobs.forEach(j -> array.add(node(j)));
                out.println(write(array));
                return 0;
            }
            if (jobs.isEmpty()) {
                out.println("no jobs (" + access().state().jobsDb() + ")");
                return 0;
            }
            List<List<String>> rows = new ArrayList<>();
            rows.add(List.of("ID", "PARENT", "STATE", "CREATED", "ENDED", "WRITE PATHS"));
            for (Job j : jobs) {
                rows.add(List.of(j.id().toString(), j.parent().map(JobId::toString).orElse("-"), j.state().label(),
                        j.created().toString(), j.state().ended().map(Instant::toString).orElse("-"), globs(j)));
            }
            Tables.align(rows, "").forEach(out::println);
            return 0;
        });
    }

    @Command(name = "show", description = "Shows one job with its trail and the checkouts leased to it.")
    int show(@Parameters(paramLabel = "ID") String idText,
             @Option(names = "--json", description = "Prints one JSON object (schema in the class documentation).") boolean json) {
        return guarded(out -> {
            JobId id = id(idText, "ID");
            JobStoreAccess a = access();
            JobStore store = JobStore.openExisting(a.state().jobsDb()).orElseThrow(() -> refuse(
                    "no job " + id + ": there is no job store yet (" + a.state().jobsDb() + ")", "ID"));
            Job job;
            List<TrailEntry> trail;
            try (store) {
                job = store.find(id).orElseThrow(() -> refuse("no job " + id + " in " + store.file(), "ID"));
                trail = store.trail(id);
            }
            List<Marker> leases = new LeaseMarkers(a.state(), a.cacheDir()).list().stream()
                    .filter(m -> m.job().equals(id)).toList();
            if (json) {
                ObjectNode node = node(job);
                ArrayNode t = node.putArray("trail");
                trail.forEach(e -> t.add(node(e)));
                ArrayNode l = node.putArray("leases");
                leases.forEach(m -> l.add(m.checkout().toString()));
                out.println(write(node));
                return 0;
            }
            List<List<String>> head = new ArrayList<>();
            head.add(List.of("job", job.id().toString()));
            head.add(List.of("parent", job.parent().map(JobId::toString).orElse("none (a root job: never narrowed)")));
            head.add(List.of("state", job.state().label() + job.state().ended().map(e -> " at " + e).orElse("")));
            head.add(List.of("created", job.created().toString()));
            head.add(List.of("write paths", job.writePaths().isEmpty() ? "(none: never narrowed)" : globs(job)));
            head.add(List.of("leases", leases.isEmpty() ? "(none)"
                    : leases.stream().map(m -> m.checkout().toString()).collect(Collectors.joining(" "))));
            Tables.align(head, "").forEach(out::println);
            out.println();
            out.println("trail");
            List<List<String>> rows = new ArrayList<>();
            for (TrailEntry e : trail) {
                rows.add(List.of(e.at().toString(), e.event().kind(), describe(e.event())));
            }
            Tables.align(rows, "  ").forEach(out::println);
            return 0;
        });
    }

    @Command(name = "end", description = "Ends a live job: done, or failed with --failed. Its leases stop narrowing.")
    int end(@Parameters(paramLabel = "ID") String idText,
            @Option(names = "--failed", description = "Records that the job failed.") boolean failed) {
        return guarded(out -> {
            JobId id = id(idText, "ID");
            try (JobStore store = JobStore.open(access().state().jobsDb())) {
                Job j = store.end(id, failed);
                out.println("job " + j.id() + " " + j.state().label());
            }
            return 0;
        });
    }

    private JobStoreAccess access() {
        return JobStoreAccess.of(context.host().get());
    }

    /** Runs a subcommand; a refusal is one line on stderr and 125, never a stack trace. */
    private int guarded(Function<PrintWriter, Integer> body) {
        return guard(spec, body);
    }

    static int guard(CommandSpec spec, Function<PrintWriter, Integer> body) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            return body.apply(out);
        } catch (SandboxException e) {
            err.println(HumanLines.line(e.diagnostic()));
            return ExitCodes.REFUSED;
        } finally {
            out.flush();
            err.flush();
        }
    }

    static JobId id(String text, String what) {
        return JobId.parse(text).orElseThrow(() -> refuse(what + " must be a job id (a positive number), not '" + text + "'", what));
    }

    static SandboxException refuse(String message, String source) {
        return new SandboxException(Diagnostic.of(Code.MGS2004, message, source, Operation.NONE, Layer.POLICY, source));
    }

    private static String globs(Job j) {
        return j.writePaths().stream().map(WriteGlob::text).collect(Collectors.joining(" "));
    }

    private static String describe(TrailEvent e) {
        if (e instanceof TrailEvent.Ended end) {
            return end.state();
        }
        if (e instanceof TrailEvent.LeaseAcquired a) {
            return a.checkout().toString();
        }
        if (e instanceof TrailEvent.LeaseReleased r) {
            return r.checkout().toString();
        }
        if (e instanceof TrailEvent.SandboxDenial d) {
            return d.code() + " " + d.operation().label() + " " + d.path() + " [" + d.layer().label() + "]"
                    + d.run().map(r -> " run " + r).orElse("") + (d.source().isEmpty() ? "" : " source=" + d.source());
        }
        if (e instanceof TrailEvent.RunStarted r) {
            return "run " + r.run() + " in " + r.dir() + ": " + r.command();
        }
        if (e instanceof TrailEvent.RunEnded r) {
            return "run " + r.run() + " exit " + r.status() + (r.omitted() > 0 ? " (" + r.omitted() + " more refusals not recorded)" : "");
        }
        return "";
    }

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private static ObjectNode node(Job j) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("id", j.id().value());
        if (j.parent().isPresent()) {
            n.put("parent", j.parent().get().value());
        } else {
            n.putNull("parent");
        }
        n.put("state", j.state().label());
        n.put("created", j.created().toString());
        if (j.state().ended().isPresent()) {
            n.put("ended", j.state().ended().get().toString());
        } else {
            n.putNull("ended");
        }
        ArrayNode w = n.putArray("write_paths");
        j.writePaths().forEach(g -> w.add(g.text()));
        return n;
    }

    private static ObjectNode node(TrailEntry e) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("seq", e.seq());
        n.put("at", e.at().toString());
        n.put("kind", e.event().kind());
        TrailEvent ev = e.event();
        if (ev instanceof TrailEvent.Ended end) {
            n.put("state", end.state());
        } else if (ev instanceof TrailEvent.LeaseAcquired a) {
            n.put("path", a.checkout().toString());
        } else if (ev instanceof TrailEvent.LeaseReleased r) {
            n.put("path", r.checkout().toString());
        } else if (ev instanceof TrailEvent.SandboxDenial d) {
            n.put("path", d.path().toString());
            n.put("operation", d.operation().label());
            n.put("code", d.code().name());
            n.put("layer", d.layer().label());
            d.run().ifPresent(r -> n.put("run", r));
            if (!d.source().isEmpty()) {
                n.put("source", d.source());
            }
        } else if (ev instanceof TrailEvent.RunStarted r) {
            n.put("run", r.run());
            n.put("path", r.dir().toString());
            n.put("command", r.command());
        } else if (ev instanceof TrailEvent.RunEnded r) {
            n.put("run", r.run());
            n.put("status", r.status());
            n.put("omitted", r.omitted());
        }
        return n;
    }

    private static String write(Object node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write a JSON tree of strings", e);
        }
    }
}
