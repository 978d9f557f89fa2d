package dev.magus.cli;

import dev.magus.events.Code;
import dev.magus.events.Echo;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "explain", description = "Prints a diagnostic code's page: what boundary it is, why, and how to declare the access.")
final class ExplainCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "CODE", description = "A code such as MGS2001; without one, the list of codes.")
    Optional<String> code;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (code.isEmpty()) {
            for (Code c : Code.values()) {
                out.printf("%s  %-7s  %s%n", c.name(), c.severity().name().toLowerCase(java.util.Locale.ROOT), c.summary());
            }
            out.flush();
            return 0;
        }
        Optional<Code> parsed = Code.parse(code.get());
        if (parsed.isEmpty()) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("magus: unknown code " + Echo.quoted(code.get()) + "; 'magus explain' lists them");
            err.flush();
            return ExitCodes.USAGE;
        }
        out.print(parsed.get().page());
        out.flush();
        return 0;
    }
}
