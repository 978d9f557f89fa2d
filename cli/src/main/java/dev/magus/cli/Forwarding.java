package dev.magus.cli;

import dev.magus.server.client.RunForwarder;
import dev.magus.server.client.ServerForwarder;
import dev.magus.server.lifecycle.AutoStart;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.Stdin;
import java.io.PrintWriter;
import java.util.Optional;

/**
 * {@code magus run} forwards to a running magus server by itself (issue 15), through the
 * server module's {@link ServerForwarder}, with its one-run grants, hosts, spell op and target.
 * A run that asks for what only this process does (an events file, a log, the live view, the
 * kernel's audit records) stays local, as does {@code --local}.
 */
final class Forwarding {
    private Forwarding() {
    }

    /** The run's exit status when a server ran it; empty to run it here. */
    static Optional<Integer> tryForward(RunRequest request, Optional<String> sandbox, CliContext context, PrintWriter lines,
            boolean verbose) {
        if (AutoStart.off(context.host().get().env())) {
            return Optional.empty(); // MAGUS_SERVER=off: every run here, as with --local
        }
        RunForwarder forwarder = new ServerForwarder();
        return forwarder.forward(new RunForwarder.Forward(request.argv(), request.workingDir(),
                context.host().get().env(), request.envSet(), request.envUnset(), sandbox,
                request.stdin() instanceof Stdin.Inherit ? Optional.of(System.in) : Optional.empty(), System.out,
                System.err, lines, d -> {
                    if (HumanLines.shown(d, verbose)) {
                        lines.println(HumanLines.line(d, verbose));
                    }
                }, request.grants().allow(), request.grants().pass(), request.op(), request.target(), request.allowHosts()));
    }
}
