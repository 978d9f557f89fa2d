package dev.magus.server.client;

import dev.magus.events.Diagnostic;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Hands {@code magus run} to a running magus server: the client side the command line (module
 * {@code cli}) calls, {@link ServerForwarder} being the one that speaks to the user's server.
 */
public interface RunForwarder {
    /**
     * Forwards the run and streams it to {@code out}/{@code err} until it ends.
     *
     * @return the run's exit status; empty when it must run here instead: no server answers,
     *         or the server declined it (its workspace does not meet this client's mode), in
     *         which case the forwarder has said so on {@code lines}
     */
    Optional<Integer> forward(Forward run);

    /**
     * One run to forward.
     *
     * @param env     the client's whole environment: the run uses it, not the server's
     * @param sandbox {@code --sandbox}, as written
     * @param lines       where magus's own lines go (a decline, a server that cannot be used)
     * @param diagnostics each diagnostic of the run, shown as a local run shows it
     * @param allow       {@code --allow}, as written
     * @param pass        {@code --pass}, as written
     * @param op          {@code --op SPELL}
     * @param target      {@code --target NAME}; {@code argv} is then what is appended to its command
     * @param allowHosts  {@code --allow-host}, as written
     */
    record Forward(List<String> argv, Path cwd, Map<String, String> env, Map<String, String> set, Set<String> unset,
            Optional<String> sandbox, Optional<InputStream> stdin, OutputStream out, OutputStream err, PrintWriter lines,
            Consumer<Diagnostic> diagnostics, List<String> allow, List<String> pass, Optional<String> op,
            Optional<String> target, List<String> allowHosts) {
        public Forward {
            argv = List.copyOf(argv);
            Objects.requireNonNull(cwd, "cwd");
            env = Map.copyOf(env);
            set = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(set));
            unset = java.util.Collections.unmodifiableSet(new java.util.LinkedHashSet<>(unset));
            Objects.requireNonNull(sandbox, "sandbox");
            Objects.requireNonNull(stdin, "stdin");
            Objects.requireNonNull(out, "out");
            Objects.requireNonNull(err, "err");
            Objects.requireNonNull(lines, "lines");
            Objects.requireNonNull(diagnostics, "diagnostics");
            allow = List.copyOf(allow);
            pass = List.copyOf(pass);
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(target, "target");
            allowHosts = List.copyOf(allowHosts);
        }

        /** A run of a command, with one-run grants and extra hosts for its proxy (no op, no target). */
        public Forward(List<String> argv, Path cwd, Map<String, String> env, Map<String, String> set, Set<String> unset,
                Optional<String> sandbox, Optional<InputStream> stdin, OutputStream out, OutputStream err,
                PrintWriter lines, Consumer<Diagnostic> diagnostics, List<String> allow, List<String> pass,
                List<String> allowHosts) {
            this(argv, cwd, env, set, unset, sandbox, stdin, out, err, lines, diagnostics, allow, pass, Optional.empty(),
                    Optional.empty(), allowHosts);
        }

        /** A run of a command, with one-run grants (no op, no target, no extra hosts). */
        public Forward(List<String> argv, Path cwd, Map<String, String> env, Map<String, String> set, Set<String> unset,
                Optional<String> sandbox, Optional<InputStream> stdin, OutputStream out, OutputStream err,
                PrintWriter lines, Consumer<Diagnostic> diagnostics, List<String> allow, List<String> pass) {
            this(argv, cwd, env, set, unset, sandbox, stdin, out, err, lines, diagnostics, allow, pass, Optional.empty(),
                    Optional.empty(), List.of());
        }

        /** A run without one-run grants. */
        public Forward(List<String> argv, Path cwd, Map<String, String> env, Map<String, String> set, Set<String> unset,
                Optional<String> sandbox, Optional<InputStream> stdin, OutputStream out, OutputStream err,
                PrintWriter lines, Consumer<Diagnostic> diagnostics) {
            this(argv, cwd, env, set, unset, sandbox, stdin, out, err, lines, diagnostics, List.of(), List.of(), Optional.empty(),
                    Optional.empty(), List.of());
        }
    }
}
