package dev.magus.cli;

import dev.magus.events.Echo;
import dev.magus.events.SandboxException;
import dev.magus.events.Suggestions;
import dev.magus.orchestrator.run.Unexpected;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * What reaches the person when a command fails instead of answering: one line, never a stack
 * trace. picocli's own handlers print the trace of whatever a command throws, and echo a bad
 * argument in full with its control characters; a trace tells a person nothing about what to
 * change, and a hostile argument must not drive their terminal.
 *
 * <ul>
 *   <li>a {@link SandboxException}: its diagnostic's line, naming the source, exit 125;
 *   <li>anything else a command throws is a bug of magus: {@link Unexpected#line}, exit 125;
 *   <li>a command line picocli cannot parse: one line, its message (control characters visible,
 *       cut short), for an unknown option, subcommand or argument the closest names, and where
 *       the help is, exit 125 ({@link ExitCodes#USAGE});
 *   <li>a command of commands given none ({@code magus} alone): its message and its usage, exit 125.
 * </ul>
 */
final class Failures implements IExecutionExceptionHandler, IParameterExceptionHandler {
    /** Longer than any message picocli writes about a sane argument. */
    static final int MAX_USAGE_MESSAGE = 300;

    @Override
    public int handleExecutionException(Exception ex, CommandLine commandLine, ParseResult parseResult) {
        if (ex instanceof ParameterException pe) {
            // A usage error a command found itself (magus run without a command): as picocli's own.
            return handleParseException(pe, new String[0]);
        }
        PrintWriter err = commandLine.getErr();
        if (ex instanceof SandboxException e) {
            err.println(HumanLines.line(e.diagnostic()));
        } else {
            err.println(Unexpected.line(ex));
        }
        err.flush();
        return ExitCodes.REFUSED;
    }

    /**
     * A mistyped subcommand or option: the closest names by edit distance ({@link Suggestions}),
     * as {@code  (did you mean 'magus run --local'?)}, or nothing.
     */
    private static String suggestion(UnmatchedArgumentException u, CommandLine cl) {
        if (u.getUnmatched().isEmpty()) {
            return "";
        }
        String typed = u.getUnmatched().get(0);
        boolean option = typed.startsWith("-");
        if (option && typed.indexOf('=') > 0) {
            typed = typed.substring(0, typed.indexOf('='));
        }
        java.util.Collection<String> names = option ? cl.getCommandSpec().optionsMap().keySet()
                : cl.getSubcommands().keySet();
        List<String> close = Suggestions.closest(typed, names);
        if (close.isEmpty()) {
            return "";
        }
        String prefix = cl.getCommandSpec().qualifiedName() + " ";
        return " (did you mean " + String.join(" or ", close.stream().map(c -> "'" + prefix + c + "'").toList()) + "?)";
    }

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        PrintWriter err = cl.getErr();
        String message = Echo.visible(String.valueOf(ex.getMessage()));
        if (message.length() > MAX_USAGE_MESSAGE) {
            message = message.substring(0, MAX_USAGE_MESSAGE) + "…";
        }
        if (!cl.getSubcommands().isEmpty() && !(ex instanceof UnmatchedArgumentException)) {
            // A command of commands given none of them (magus alone): its usage lists them.
            err.println("magus: " + message);
            cl.usage(err, cl.getColorScheme());
        } else {
            // One line: what was not understood, the names it was close to, where the rest is.
            String close = ex instanceof UnmatchedArgumentException u ? suggestion(u, cl) : "";
            err.println("magus: " + message + close + "; see '" + cl.getCommandSpec().qualifiedName() + " --help'");
        }
        err.flush();
        return ExitCodes.USAGE;
    }
}
