package dev.magus.server.client;

import java.util.List;

/**
 * The options of {@code magus run} that the forwarding clients forward themselves: the one
 * list {@link FastArgs} reads, and that the native client ({@code magus-client.c}) and
 * bin/magus repeat (RunGrammarTest in cli holds them to it, and both to run's own model).
 * Every other option of run stays with the full command line.
 */
public final class FastGrammar {
    private FastGrammar() {
    }

    /** Options that take no value. */
    public static final List<String> FLAGS = List.of("--stdin", "--no-stdin", "-v", "--verbose", "-q", "--quiet");

    /** Options that take one, as the next word or after {@code =}. */
    public static final List<String> VALUED = List.of("--sandbox", "--env", "--unset", "--allow", "--pass", "--allow-host",
            "--op", "--target");
}
