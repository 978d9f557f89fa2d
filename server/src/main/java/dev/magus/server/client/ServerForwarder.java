package dev.magus.server.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.server.lifecycle.AutoStart;
import dev.magus.server.protocol.Frame;
import dev.magus.server.socket.Activation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * {@code magus run}'s forwarding: finds the user's server from the client's environment (the
 * socket directory and its token file), forwards the run, and shows it as a local run shows
 * itself. No socket, nobody listening, or a decline: the run is the caller's to do.
 */
public final class ServerForwarder implements RunForwarder {
    /** The signals a terminal sends, forwarded to the child's group as a local run forwards them. */
    private static final Map<String, Integer> SIGNALS = Map.of("INT", 2, "TERM", 15, "HUP", 1);

    @Override
    public Optional<Integer> forward(Forward run) {
        ServerLocation where = ServerLocation.find(run.env(), uid());
        Path socket = where.socket();
        if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            return nobodyThere(where, run);
        }
        Optional<String> token = where.token();
        if (token.isEmpty()) {
            // A socket without a token: a socket-activated server starts when connected to.
            token = Activation.awaitToken(socket, where.dir().tokenFile(), Activation.WITHIN);
        }
        if (token.isEmpty()) {
            return nobodyThere(where, run);
        }
        ServerClient client;
        try {
            where.dir().check(uid());
            client = ServerClient.connect(socket, token.get());
        } catch (ServerClient.Refused e) {
            run.lines().println("magus: the magus server refused this client: " + e.getMessage() + "; running here instead");
            run.lines().flush();
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            return nobodyThere(where, run); // a stale socket: nobody answers
        }
        try (client) {
            Frame.Submit submit = new Frame.Submit(run.argv(), run.cwd().toAbsolutePath().toString(), run.env(), run.set(),
                    new ArrayList<>(run.unset()), run.sandbox(), run.stdin().isPresent(), false, run.allow(), run.pass(), run.op(),
                    run.target(), run.allowHosts());
            forwardSignals(client);
            ServerClient.Outcome outcome = client.forward(submit, run.stdin().orElse(null), run.out(), run.err(),
                    e -> diagnostic(e).ifPresent(run.diagnostics()));
            if (outcome instanceof ServerClient.Outcome.Declined d) {
                // None for a run from inside a forwarded run: it runs here as it would have without a server.
                if (!d.frame().message().isEmpty()) {
                    run.lines().println("magus: " + d.frame().message());
                    run.lines().flush();
                }
                return Optional.empty();
            }
            return Optional.of(((ServerClient.Outcome.Exited) outcome).status());
        } catch (IOException e) {
            // The run may have started: it is not run a second time here.
            run.lines().println("magus: lost the magus server in the middle of the run: " + e.getMessage());
            run.lines().flush();
            return Optional.of(125);
        }
    }

    /** No server answers: the run is the caller's, and in a login session the user's server starts beside it. */
    private static Optional<Integer> nobodyThere(ServerLocation where, Forward run) {
        AutoStart.nobodyThere(where.dir(), run.env(), uid(), run.lines());
        return Optional.empty();
    }

    @SuppressWarnings("restriction")
    private static void forwardSignals(ServerClient client) {
        for (Map.Entry<String, Integer> s : SIGNALS.entrySet()) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(s.getKey()), sig -> {
                    try {
                        client.signal(s.getValue());
                    } catch (IOException e) {
                        // the run is over or the server gone
                    }
                });
            } catch (IllegalArgumentException e) {
                // the JVM keeps this signal for itself here
            }
        }
    }

    /** The diagnostic an event frame carries, rebuilt from telemetry's NDJSON fields. */
    static Optional<Diagnostic> diagnostic(ObjectNode e) {
        if (!e.path("type").asText().equals("diagnostic")) {
            return Optional.empty();
        }
        Code code;
        try {
            code = Code.valueOf(e.path("code").asText());
        } catch (IllegalArgumentException x) {
            return Optional.empty();
        }
        Diagnostic d = Diagnostic.of(code, e.path("message").asText(), e.path("subject").asText(),
                byLabel(Operation.values(), Operation::label, e.path("op").asText(), Operation.NONE),
                byLabel(Layer.values(), Layer::label, e.path("layer").asText(), Layer.POLICY), e.path("source").asText());
        for (Iterator<Map.Entry<String, JsonNode>> it = e.path("details").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> kv = it.next();
            d = d.withDetail(kv.getKey(), kv.getValue().asText());
        }
        return Optional.of(d);
    }

    private static <T> T byLabel(T[] values, java.util.function.Function<T, String> label, String wanted, T fallback) {
        for (T v : values) {
            if (label.apply(v).equals(wanted)) {
                return v;
            }
        }
        return fallback;
    }

    static long uid() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return -1;
        }
    }
}
