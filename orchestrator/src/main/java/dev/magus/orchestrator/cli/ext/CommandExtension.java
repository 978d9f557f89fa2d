package dev.magus.orchestrator.cli.ext;

/**
 * A subcommand of {@code magus} that lives in a module the command line cannot depend on
 * ({@code magus server}, in the server module). Found with {@link java.util.ServiceLoader}.
 */
public interface CommandExtension {
    /** The subcommand's name. */
    String name();

    /** A fresh picocli command object (annotated with {@code @Command}). */
    Object command();
}
