package dev.magus.cli;

import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.SandboxException;
import dev.magus.orchestrator.run.Host;
import dev.magus.policy.Locations;
import dev.magus.policy.LookPath;
import dev.magus.policy.Verdict;
import dev.magus.policy.fs.Access;
import dev.magus.events.Mode;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code magus check read|write|exec PATH [--cwd DIR]}: the binding-layer verdict of the
 * workspace's policy, exactly as a run's binding checks would give it.
 *
 * <p>Exit 0 and {@code allowed: <resolved path>} when allowed; exit 1 with the diagnostic's
 * line, the nearest rule and the YAML that would allow it when denied; 127 when an exec's
 * unqualified name is not found on PATH (as {@code magus run}); 125 when the workspace's
 * configuration is refused (MGS2004) and for an unknown operation (a usage error, as every
 * command line magus cannot act on).
 */
@Command(name = "check", description = "Tells whether the workspace's policy allows an access (exit 0 allowed, 1 denied).")
final class CheckCommand implements Callable<Integer> {
    static final int DENIED = 1;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "OP", description = "read, write or exec")
    String op;

    @Parameters(index = "1", paramLabel = "PATH", description = "The path to check, relative to the current directory;"
            + " for exec, a name without '/' is looked up on PATH first.")
    String path;

    @Option(names = "--cwd", paramLabel = "DIR", description = "Checks as if started in DIR (its workspace, and relative paths from it).")
    Optional<String> cwd;

    private final CliContext context;

    CheckCommand() {
        this(CliContext.system());
    }

    CheckCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            return check(out, err);
        } finally {
            out.flush();
            err.flush();
        }
    }

    private int check(PrintWriter out, PrintWriter err) {
        Optional<Access> parsed = operation(op);
        if (parsed.isEmpty()) {
            // A usage error: 125 (ExitCodes.USAGE), as picocli's parameter errors are mapped,
            // never 1, which is "denied" for this command. Checked here so the message names
            // the operations there are.
            err.println("magus check: unknown operation " + Echo.quoted(op)
                    + " (expected read, write or exec); see 'magus check --help'");
            return ExitCodes.USAGE;
        }
        Access operation = parsed.get();
        Host host = context.host().get();
        Path started = context.cwd().get();
        EffectivePolicy effective;
        Path dir;
        Path target;
        try {
            dir = cwd.map(c -> started.resolve(Flags.path(c, "--cwd"))).orElse(started).toAbsolutePath().normalize();
            target = Flags.path(path, "PATH");
            effective = EffectivePolicy.of(host, dir, Optional.empty());
        } catch (SandboxException e) {
            err.println(HumanLines.line(e.diagnostic()));
            return ExitCodes.REFUSED;
        }
        if (operation == Access.EXEC && !path.contains("/")) {
            String pathVar = host.env().getOrDefault("PATH", "/usr/bin:/bin");
            Optional<Path> found = LookPath.find(path, pathVar, dir);
            if (found.isEmpty()) {
                err.println(Echo.visible("magus: " + path + ": not found on PATH (" + pathVar + ")"));
                return ExitCodes.NOT_FOUND;
            }
            target = found.get();
            out.println(Echo.visible(path + " is " + target + " (first match on PATH); checking that file"));
        }
        Verdict verdict = effective.policy().check(operation, target, dir);
        if (verdict instanceof Verdict.Allowed allowed) {
            out.println(Echo.visible("allowed: " + allowed.resolved()));
            if (effective.config().mode() == Mode.OFF) {
                out.println("note: the sandbox is off (" + effective.source().describe()
                        + "), so every check passes; set sandbox.mode in magus.yaml to turn it on");
            }
            return 0;
        }
        Diagnostic d = ((Verdict.Denied) verdict).diagnostic();
        Path home = effective.policy().policy().map(p -> p.home()).orElse(host.home());
        out.println(HumanLines.line(d));
        Map<String, String> details = d.details();
        if (details.containsKey(DetailKey.CONTROL_FILE.key())) {
            out.println(Echo.visible("control file: " + details.get(DetailKey.CONTROL_FILE.key()))
                    + " (binding layer only: no declaration allows writing it)");
        }
        if (details.containsKey(DetailKey.NEAREST_RULE.key())) {
            out.println(Echo.visible("nearest rule: " + details.get(DetailKey.NEAREST_RULE.key())));
        }
        if (details.containsKey(DetailKey.ALLOW_YAML.key())) {
            out.println("if this access is legitimate, add to " + effective.file()
                    .map(f -> Locations.display(f, home)).orElse("magus.yaml") + ":");
            details.get(DetailKey.ALLOW_YAML.key()).lines().forEach(l -> out.println(Echo.visible("  " + l)));
        }
        return DENIED;
    }

    /** {@code read}, {@code write}, {@code exec}; anything else is a usage error (exit 125, {@link ExitCodes#USAGE}). */
    static Optional<Access> operation(String value) {
        return switch (value) {
            case "read" -> Optional.of(Access.READ);
            case "write" -> Optional.of(Access.WRITE);
            case "exec" -> Optional.of(Access.EXEC);
            default -> Optional.empty();
        };
    }
}
