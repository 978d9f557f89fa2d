package dev.magus.cli;

import dev.magus.workspace.config.Workspace;
import dev.magus.events.MagusEnv;
import dev.magus.events.RunEvent;
import dev.magus.events.SandboxException;
import dev.magus.landlock.denials.audit.AuditAvailability;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import dev.magus.landlock.denials.audit.AuditOptions;
import dev.magus.orchestrator.Orchestrator;
import dev.magus.orchestrator.run.Passthrough;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.orchestrator.run.Stdin;
import dev.magus.orchestrator.run.Submission;
import dev.magus.events.Mode;
import dev.magus.workspace.config.WorkspaceConfig;
import dev.magus.workspace.learn.AllowAppender;
import dev.magus.workspace.learn.GrantReview;
import dev.magus.workspace.learn.Learned;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code magus learn -- CMD}: runs CMD confined (the workspace's mode, at least best-effort),
 * collects its denials, inferred and (when audit records can be read) exact, and prints the
 * fewest {@code sandbox.allow} entries that allow them ({@link Learned}). Only safe hints are
 * ever proposed; an access that looks like an attack is listed apart and never added.
 * {@code --write} adds them to {@code magus.yaml} ({@link AllowAppender}) with a comment naming
 * each denial, keeping the rest of the file as it was, and never when the file or the result
 * fails to parse. It writes by allowlist ({@link GrantReview}): only grants of a kind known to
 * be safe; the others are printed as "needs review" and written only with {@code --force};
 * a grant of a startup file, a PATH or package directory, a credential store or an agent's
 * directory is never proposed, not even with {@code --force}.
 */
@Command(name = "learn", description = "Runs CMD confined (the workspace's mode, at least best-effort) and prints the"
        + " magus.yaml additions its denials call for; accesses that look like an attack are listed apart and never"
        + " added. With --write, adds them to magus.yaml.")
final class LearnCommand implements Callable<Integer> {
    @Option(names = "--write", description = "Adds the entries to magus.yaml (created in the working directory when"
            + " there is none), each with a comment naming the denial; every other line is kept.")
    boolean write;

    @Option(names = "--force", description = "With --write, also adds the entries that need review (never those of"
            + " startup files, PATH or package directories, credential stores or agents' directories).")
    boolean force;

    @Option(names = "--kernel-audit", description = "Also reads Landlock's audit records (root or CAP_AUDIT_READ),"
            + " switching audit on for the run if it is off. Without it they are read only when audit is already on.")
    boolean kernelAudit;

    @Option(names = "--rerun", paramLabel = "N", description = "Runs CMD again, with what the rounds so far learned"
            + " granted for that run only, until it runs clean or N rounds have run; prints the union of the additions.")
    int rerun = 1;

    @Parameters(arity = "1..*", paramLabel = "CMD", description = "The command and its arguments (after --).")
    List<String> command;

    @Spec
    CommandSpec spec;

    private final CliContext context;

    LearnCommand() {
        this(CliContext.system());
    }

    LearnCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path cwd = context.cwd().get().toAbsolutePath().normalize();
        Optional<Path> file;
        Mode mode;
        try {
            file = Workspace.findFile(cwd);
            // Read first: a file that does not parse is reported, and never written to.
            WorkspaceConfig config = file.map(f -> WorkspaceConfig.parse(f).config()).orElse(WorkspaceConfig.DEFAULT);
            Optional<Mode> floor = Optional.ofNullable(context.host().get().env().get(MagusEnv.SANDBOX))
                    .filter(v -> !v.isEmpty()).map(v -> Mode.parse(v, MagusEnv.SANDBOX));
            mode = Mode.stronger(Mode.stronger(config.mode(), Mode.BEST_EFFORT), floor.orElse(Mode.OFF));
        } catch (SandboxException e) {
            err.println(HumanLines.line(e.diagnostic()));
            return ExitCodes.REFUSED;
        }
        Orchestrator.Builder builder = Orchestrator.builder(context.host().get()).services(context.services());
        AuditDenialSource audit = null;
        AuditAvailability availability = context.audit().get();
        if (kernelAudit || availability instanceof AuditAvailability.Available a && a.producing()) {
            try {
                audit = AuditDenialSource.open(new AuditOptions(kernelAudit));
                builder.audit(audit);
            } catch (SandboxException e) {
                err.println(HumanLines.line(e.diagnostic()));
                return ExitCodes.REFUSED;
            }
        }
        if (rerun < 1) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--rerun takes a number of rounds, 1 or more, not "
                    + rerun);
        }
        List<dev.magus.events.Diagnostic> seen = Collections.synchronizedList(new ArrayList<>());
        RunResult result = null;
        Orchestrator orchestrator = builder.build();
        try {
            Learned so = Learned.from(List.of());
            for (int round = 1; round <= rerun; round++) {
                if (round > 1) {
                    err.println("magus learn: round " + round + " of " + rerun + ", with " + grants(granted(so, cwd)));
                }
                int before = seen.size();
                result = round(orchestrator, cwd, mode, granted(so, cwd), seen, err);
                boolean clean = result != null && result.status() == 0
                        && Learned.from(List.copyOf(seen.subList(before, seen.size()))).additions().isEmpty();
                Learned now = Learned.from(List.copyOf(seen));
                // Clean, or nothing new to grant: another round would run the same.
                if (result == null || clean || now.additions().equals(so.additions())) {
                    break;
                }
                so = now;
            }
        } finally {
            if (audit != null) {
                audit.close();
            }
        }
        System.out.flush();
        err.flush();
        if (result == null) {
            return ExitCodes.REFUSED;
        }
        Learned learned = Learned.from(List.copyOf(seen));
        Path target = file.orElse(cwd.resolve(Workspace.FILE));
        Path workspace = target.toAbsolutePath().getParent();
        Learned.Reviewed reviewed = learned.reviewed(GrantReview.Context.of(context.host().get().env(),
                context.host().get().home(), workspace == null ? cwd : workspace));
        // What is never proposed is not shown among the entries to add, only in its own line below.
        List<Learned.Addition> never = reviewed.never().stream().map(Learned.Judged::addition).toList();
        report(out, new Learned(learned.additions().stream().filter(a -> !never.contains(a)).toList(),
                learned.attacks(), learned.benign(), learned.byHand()), result.status(), !never.isEmpty());
        reviewed.review().forEach(j -> out.println("magus learn: needs review: " + j.addition().path() + " ("
                + j.addition().mode() + "): " + j.why() + (write && !force ? "; not written without --force" : "")));
        reviewed.never().forEach(j -> out.println("magus learn: never proposed: " + j.addition().path() + " ("
                + j.addition().mode() + "): " + j.why() + "; not written, not even with --force"));
        List<Learned.Addition> chosen = reviewed.toWrite(force);
        if (!write || chosen.isEmpty()) {
            out.flush();
            return 0;
        }
        return write(out, err, target, new Learned(chosen, learned.attacks(), learned.benign(), learned.byHand()));
    }

    /**
     * What a next round grants of {@code so}: what {@code --write} would write ({@link GrantReview}),
     * as {@code --allow} values.
     */
    private List<String> granted(Learned so, Path cwd) {
        dev.magus.orchestrator.run.Host host = context.host().get();
        Path workspace = Workspace.findFile(cwd).map(f -> f.toAbsolutePath().getParent()).orElse(cwd);
        return so.reviewed(GrantReview.Context.of(host.env(), host.home(), workspace)).toWrite(force).stream()
                .map(a -> a.path() + ":" + a.mode()).toList();
    }

    /** One run of CMD, with {@code allow} granted for this run only; its diagnostics go to {@code seen}. */
    private RunResult round(Orchestrator orchestrator, Path cwd, Mode mode, List<String> allow,
            List<dev.magus.events.Diagnostic> seen, PrintWriter err) {
        RunRequest.Builder b = RunRequest.builder(cwd, command).sandbox(mode).stdin(new Stdin.Inherit());
        allow.forEach(b::allow);
        Run run = orchestrator.submit(Submission.of(b.build()).withPassthrough(Passthrough.of(System.out, System.err)));
        Signals.forward(run);
        run.events().subscribe(e -> {
            if (e instanceof RunEvent.Diag d) {
                seen.add(d.diagnostic());
                if (HumanLines.shown(d.diagnostic(), false)) {
                    err.println(HumanLines.line(d.diagnostic()));
                }
            }
        });
        return run.result().block();
    }

    private static String grants(List<String> allow) {
        return allow.isEmpty() ? "nothing more granted" : "--allow " + String.join(" --allow ", allow);
    }

    private void report(PrintWriter out, Learned learned, int status, boolean neverProposed) {
        out.println("magus learn: " + String.join(" ", command) + " exited " + status + "; "
                + learned.additions().size() + (learned.additions().size() == 1 ? " entry" : " entries") + " to add"
                + (learned.benign() > 0 ? ", " + learned.benign() + " harmless runtime probes ignored" : ""));
        if (!learned.empty()) {
            out.print(learned.snippet());
        }
        if (!learned.attacks().isEmpty()) {
            out.println("magus learn: not added, these look like an attack (declare them by hand only if you are sure):");
            learned.attacks().forEach(a -> out.println("  " + a));
        }
        if (!learned.byHand().isEmpty()) {
            out.println("magus learn: not added, network and socket declarations are made by hand in magus.yaml:");
            learned.byHand().forEach(a -> out.println("  " + a));
        }
        if (status != 0 && learned.empty() && learned.attacks().isEmpty() && learned.byHand().isEmpty() && !neverProposed) {
            out.println("magus learn: no denial explains the failure; it may have another cause");
        }
    }

    private int write(PrintWriter out, PrintWriter err, Path target, Learned learned) throws IOException {
        String before = Files.exists(target) ? Files.readString(target, StandardCharsets.UTF_8) : "";
        AllowAppender.Result r = AllowAppender.append(before, learned.additions());
        if (r instanceof AllowAppender.Result.Refused refused) {
            err.println("magus learn: " + target + " not written: " + refused.reason());
            return 1;
        }
        String after = ((AllowAppender.Result.Extended) r).text();
        try {
            WorkspaceConfig.read(after, target);
        } catch (SandboxException e) {
            err.println("magus learn: " + target + " not written: with the additions it would not load: "
                    + HumanLines.line(e.diagnostic()));
            return 1;
        }
        // The workspace is the child's to write: a name chosen in advance could be a link it
        // planted there, so the new text goes to a file created here, exclusively, under a
        // random name, and replaces magus.yaml by a rename (which never follows a link).
        if (Files.isSymbolicLink(target)) {
            err.println("magus learn: " + target + " not written: it is a symbolic link; edit the file it points to yourself");
            return 1;
        }
        // The person asked for these lines: a file that was theirs (trusted, new, or asking for
        // nothing beyond the workspace) stays theirs once written. A cloned repository's file that
        // waits for trust still waits: re-pinning it would trust what it declared before.
        dev.magus.orchestrator.run.Host host = context.host().get();
        dev.magus.workspace.trust.TrustStore store = dev.magus.workspace.trust.TrustStore.of(host.env(), host.home());
        boolean theirs = !Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS) || store.trusts(target)
                || TrustCommand.needingTrust(host, target.toAbsolutePath().getParent()).isEmpty();
        Path tmp = Files.createTempFile(target.toAbsolutePath().getParent(), "." + target.getFileName() + ".learn-", ".tmp");
        try {
            if (Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                // A temp file is 0600: magus.yaml keeps the mode it had.
                Files.setPosixFilePermissions(tmp, Files.getPosixFilePermissions(target, java.nio.file.LinkOption.NOFOLLOW_LINKS));
            }
            Files.writeString(tmp, after, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.WRITE,
                    java.nio.file.StandardOpenOption.TRUNCATE_EXISTING, java.nio.file.LinkOption.NOFOLLOW_LINKS);
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        out.println("magus learn: added " + learned.additions().size() + " to sandbox.allow in " + target);
        if (theirs) {
            store.trust(target);
        } else {
            out.println("magus learn: " + target + " is not trusted: its lines beyond the workspace, these among them,"
                    + " wait for 'magus trust' (MGS2016)");
        }
        out.flush();
        return 0;
    }
}
