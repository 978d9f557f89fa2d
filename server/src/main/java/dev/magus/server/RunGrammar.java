package dev.magus.server;

import dev.magus.server.protocol.Frame;

/**
 * What {@code magus run} means, as the command line reads it: the server parses a client's words
 * with the same model as the local command line, so any option a local run takes is forwarded,
 * and an unknown one, a help request or a refused value is answered with the same bytes and
 * status on both paths. The command line hands its parser to the server it starts
 * ({@code magus server start}); the server module cannot depend on it.
 */
public interface RunGrammar {
    /** What the words of {@code command} (everything after {@code magus}) make: blocking, never on an event loop. */
    Parsed parse(Frame.Command command);

    /** What a client's command line makes. */
    sealed interface Parsed {
    }

    /** A run the server serves, parsed. */
    record Serve(ServedRun run) implements Parsed {
    }

    /** What the command line answers without a run (help, a usage error, a refusal), and its exit status. */
    record Answer(int status, byte[] out, byte[] err) implements Parsed {
        public Answer {
            out = out.clone();
            err = err.clone();
        }
    }

    /**
     * A command only the client's own process serves (another command than run, {@code --local},
     * {@code --events}, the live view): the client runs it as it was given.
     *
     * @param message said to the person first (at {@code -v}), or empty
     */
    record Local(String message) implements Parsed {
    }

    /** No command line: every command is the client's own (a server that only answers status and stop). */
    RunGrammar NONE = command -> new Local("");
}
