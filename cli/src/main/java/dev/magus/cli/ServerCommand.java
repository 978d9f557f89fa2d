package dev.magus.cli;

import dev.magus.events.SandboxException;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.Orchestrator;
import dev.magus.server.MagusServer;
import dev.magus.server.MetricsEndpoint;
import dev.magus.server.client.ServerClient;
import dev.magus.server.lifecycle.IdleTimeout;
import dev.magus.server.lifecycle.ServerProcess;
import dev.magus.server.protocol.Frame;
import dev.magus.server.socket.SocketDir;
import dev.magus.server.socket.Token;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code magus server}: without a subcommand, serves in the foreground until stopped;
 * {@code start} does the same in the background, {@code stop} stops it, {@code status} shows
 * its counters. One server per user, found through {@link SocketDir}.
 */
@Command(name = "server", description = "Serves forwarded runs on a Unix socket (in the foreground; see start, stop, status).",
        subcommands = {ServerCommand.Start.class, ServerCommand.Stop.class, ServerCommand.Status.class})
public final class ServerCommand implements Callable<Integer> {
    static final int NOT_RUNNING = 3;

    @Option(names = "--metrics", paramLabel = "ADDR", description = "Also serves a Prometheus scrape at http://ADDR/metrics"
            + " (loopback only, e.g. 127.0.0.1:9464).")
    Optional<String> metrics;

    @Option(names = "--idle-timeout", paramLabel = "DURATION", description = "Stops after this long with no connection"
            + " (e.g. 90s, 30m, 2h; 0 or never: only when stopped). Default: $MAGUS_SERVER_IDLE_TIMEOUT, else 30m.")
    Optional<String> idleTimeout;

    private final CliContext context;

    ServerCommand() {
        this(CliContext.system());
    }

    ServerCommand(CliContext context) {
        this.context = context;
    }

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Host host = Host.fromSystem();
        SocketDir dir = SocketDir.forUser(host.env(), host.uid());
        IdleTimeout idle = IdleTimeout.of(idleTimeout, host.env());
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MagusServer server;
        try {
            // A listening socket on standard input is systemd's (socket activation): served instead of one of its own.
            // Every forwarded run shares the process's RunServices for the server's life: one pool of
            // I/O threads, one watchdog, and a workspace's magus.yaml, spells and audit walks read
            // once while they do not change.
            Orchestrator orchestrator = Orchestrator.builder(host).meterRegistry(registry).services(context.services()).build();
            server = MagusServer.start(dir, host, orchestrator, registry,
                    new MagusServer.Settings(PrintedLines.INSTANCE, new ServedCommandLine(host, context.services()), idle, true));
        } catch (MagusServer.AlreadyRunning e) {
            err.println("magus: " + e.getMessage());
            return 1;
        }
        Optional<MetricsEndpoint> endpoint = Optional.empty();
        try {
            if (metrics.isPresent()) {
                endpoint = Optional.of(MetricsEndpoint.start(metrics.get(), registry));
            }
        } catch (SandboxException | IOException e) {
            server.close();
            throw e;
        }
        endpoint.ifPresent(m -> server.servesMetricsAt(address(m)));
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "magus-server-stop"));
        out.println("magus server listening on " + server.socket() + " (pid " + ProcessHandle.current().pid()
                + ", idle timeout " + idle.spelling() + ")");
        endpoint.ifPresent(m -> out.println("metrics: http://" + address(m) + "/metrics"));
        out.flush();
        server.awaitStop();
        endpoint.ifPresent(MetricsEndpoint::close);
        return 0;
    }

    private static String address(MetricsEndpoint m) {
        return m.address().getHostString() + ":" + m.address().getPort();
    }

    private static SocketDir dir() {
        Host host = Host.fromSystem();
        return SocketDir.forUser(host.env(), host.uid());
    }

    private static Optional<ServerClient> connect(SocketDir dir) throws IOException {
        Optional<String> token = Token.read(dir.tokenFile());
        if (token.isEmpty() || !ServerClient.listening(dir.socket())) {
            return Optional.empty();
        }
        return Optional.of(ServerClient.connect(dir.socket(), token.get()));
    }

    @Command(name = "start", description = "Starts the user's magus server in the background (nothing if one is running).")
    static final class Start implements Callable<Integer> {
        @Option(names = "--metrics", paramLabel = "ADDR", description = "As for 'magus server'.")
        Optional<String> metrics;

        @Option(names = "--idle-timeout", paramLabel = "DURATION", description = "As for 'magus server'.")
        Optional<String> idleTimeout;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            SocketDir dir = dir();
            if (ServerClient.listening(dir.socket())) {
                if (metrics.isEmpty()) {
                    out.println("magus server already running on " + dir.socket());
                    return 0;
                }
                // The running server keeps its own scrape: asking for one it does not serve is an error, never a quiet no.
                Optional<String> serving = servedMetrics(dir);
                if (serving.equals(metrics)) {
                    out.println("magus server already running on " + dir.socket() + " (metrics: http://" + serving.get()
                            + "/metrics)");
                    return 0;
                }
                spec.commandLine().getErr().println("magus: a magus server is already running on " + dir.socket() + " "
                        + serving.map(m -> "with its metrics at http://" + m + "/metrics").orElse("without metrics")
                        + ", not at " + metrics.get() + "; stop it first (magus server stop) to start one with --metrics "
                        + metrics.get());
                return 1;
            }
            Host host = Host.fromSystem();
            IdleTimeout idle = IdleTimeout.of(idleTimeout, host.env()); // refused here, before anything starts
            dir.prepare(host.uid());
            List<String> args = new ArrayList<>();
            metrics.ifPresent(m -> args.addAll(List.of("--metrics", m)));
            args.add("--idle-timeout=" + idle.spelling());
            Path log = dir.dir().resolve(ServerProcess.LOG);
            Process p = ServerProcess.spawn(dir, args, false);
            Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
            while (Instant.now().isBefore(deadline) && p.isAlive()) {
                if (ServerClient.listening(dir.socket()) && Files.exists(dir.tokenFile())) {
                    out.println("magus server started on " + dir.socket() + " (pid " + p.pid() + ", log " + log + ")");
                    return 0;
                }
                Thread.sleep(50);
            }
            spec.commandLine().getErr().println("magus: the magus server did not start; see " + log);
            return 1;
        }
    }

    /** The running server's scrape address, as its status says it (empty: none, or no answer). */
    private static Optional<String> servedMetrics(SocketDir dir) throws IOException {
        Optional<ServerClient> client = connect(dir);
        if (client.isEmpty()) {
            return Optional.empty();
        }
        try (ServerClient c = client.get()) {
            c.send(new Frame.StatusQuery());
            return c.read() instanceof Frame.Status s ? s.metrics() : Optional.empty();
        }
    }

    /** The idle timeout and when the server stops by itself, for a person. */
    static String idleLine(Frame.Idle i, Instant now) {
        if (i.timeoutMillis() == 0) {
            return "idle timeout: none (runs until 'magus server stop')";
        }
        String timeout = new IdleTimeout(Duration.ofMillis(i.timeoutMillis())).spelling();
        if (i.stopsAtMillis() == 0) {
            return "idle timeout: " + timeout + "; " + i.connections() + " connection(s) open: stops " + timeout
                    + " after the last one closes";
        }
        Instant at = Instant.ofEpochMilli(i.stopsAtMillis());
        long left = Math.max(0, Duration.between(now, at).toSeconds());
        return "idle timeout: " + timeout + "; stops at " + at.truncatedTo(java.time.temporal.ChronoUnit.SECONDS) + " (in "
                + left / 60 + "m" + left % 60 + "s) unless a run comes before";
    }

    @Command(name = "stop", description = "Stops the user's magus server.")
    static final class Stop implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            SocketDir dir = dir();
            Optional<ServerClient> client = connect(dir);
            if (client.isEmpty()) {
                spec.commandLine().getOut().println("no magus server is running");
                return 0;
            }
            Optional<ProcessHandle> process;
            try (ServerClient c = client.get()) {
                c.send(new Frame.StatusQuery());
                process = c.read() instanceof Frame.Status s ? ProcessHandle.of(s.pid()) : Optional.empty();
            }
            try (ServerClient c = connect(dir).orElseThrow(() -> new IOException("the magus server went away"))) {
                c.send(new Frame.Stop());
                c.read();
            }
            // Returns once the server's process is gone (its socket went before it; a socket systemd
            // passed it stays), so that a start right after finds the place free.
            Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
            while ((process.isPresent() ? process.get().isAlive() : Files.exists(dir.socket()))
                    && Instant.now().isBefore(deadline)) {
                Thread.sleep(50);
            }
            spec.commandLine().getOut().println("magus server stopped");
            return 0;
        }
    }

    @Command(name = "status", description = "Shows whether the user's magus server runs, and its counters.")
    static final class Status implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            SocketDir dir = dir();
            Optional<ServerClient> client = connect(dir);
            if (client.isEmpty()) {
                out.println("no magus server is running (socket " + dir.socket() + ")");
                return NOT_RUNNING;
            }
            Frame.ToClient answer;
            try (ServerClient c = client.get()) {
                c.send(new Frame.StatusQuery());
                answer = c.read();
            }
            Frame.Status s = (Frame.Status) answer;
            out.println("magus server running on " + dir.socket() + " (pid " + s.pid() + ", protocol " + Frame.VERSION + ")");
            s.metrics().ifPresent(m -> out.println("metrics: http://" + m + "/metrics"));
            s.idle().ifPresent(i -> out.println(idleLine(i, Instant.now())));
            for (Map.Entry<String, Double> c : s.counters().entrySet()) {
                out.printf("  %-60s %.0f%n", c.getKey(), c.getValue());
            }
            return 0;
        }
    }
}
