package dev.magus.server;

import dev.magus.env.platform.Platform;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.RunServices;
import dev.magus.orchestrator.Orchestrator;
import dev.magus.policy.HostFacts;
import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import dev.magus.server.socket.SocketDir;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * A server on a real Unix socket in a test's temp dir, with a fake home and workspace: never
 * the user's runtime dir, home or environment.
 */
final class Fixture implements AutoCloseable {
    /**
     * The few words of run the protocol tests say ({@code -v}, {@code --stdin}, {@code --no-stdin},
     * {@code --env K=V}, {@code --ask} (10 s per ask), then the command), standing in for the command line's model, which the
     * server module cannot reach; any other word is the client's own ({@code Local}).
     */
    static final RunGrammar GRAMMAR = c -> {
        List<String> a = c.args();
        if (a.isEmpty() || !a.get(0).equals("run")) {
            return new RunGrammar.Local("");
        }
        boolean verbose = false;
        boolean stdin = true;
        boolean ask = false;
        Map<String, String> set = new LinkedHashMap<>();
        int i = 1;
        for (; i < a.size() && a.get(i).startsWith("-"); i++) {
            switch (a.get(i)) {
                case "--" -> {
                    i++;
                    return serve(c, a.subList(i, a.size()), set, stdin, verbose, ask);
                }
                case "-v" -> verbose = true;
                case "--ask" -> ask = true;
                case "--stdin" -> stdin = true;
                case "--no-stdin" -> stdin = false;
                case "--env" -> {
                    String kv = a.get(++i);
                    set.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
                }
                default -> {
                    return new RunGrammar.Local("");
                }
            }
        }
        return serve(c, a.subList(i, a.size()), set, stdin, verbose, ask);
    };

    private static RunGrammar.Parsed serve(Frame.Command c, List<String> argv, Map<String, String> set, boolean stdin,
            boolean verbose, boolean ask) {
        Frame.Submit run = new Frame.Submit(argv, c.cwd(), c.env(), set, List.of(), Optional.empty(), stdin, false,
                List.of(), List.of(), Optional.empty(), Optional.empty(), List.of(), verbose, false);
        return new RunGrammar.Serve(ask ? run.asking(java.time.Duration.ofSeconds(10)) : run);
    }
    /**
     * magus's lines as the server writes them on a forwarded run's stderr, shaped as the command
     * line's (which the server module cannot reach): code, message, where to read more.
     */
    static final RunLines LINES = new RunLines() {
        @Override
        public Optional<String> diagnostic(dev.magus.events.Diagnostic d, boolean verbose, boolean quiet) {
            return d.severity() == dev.magus.events.Severity.DEBUG && !verbose ? Optional.empty()
                    : Optional.of("magus: " + d.code() + " " + d.message() + "; see 'magus explain " + d.code() + "'");
        }

        @Override
        public Optional<String> started(dev.magus.events.RunEvent.Started started, Path cwd, Optional<String> sandbox,
                List<String> argv, boolean quiet) {
            return Optional.empty();
        }

        @Override
        public List<String> granted(List<String> allow, Path cwd, Path home, boolean quiet) {
            return List.of();
        }
    };

    final Path home;
    final Path workspace;
    final Path tempBase;
    final SocketDir dir;
    final Map<String, String> env = new LinkedHashMap<>();
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final MagusServer server;
    /** What the server's runs share, as a server process's would; closed with the fixture. */
    final RunServices services = new RunServices();

    /** {@code bin/magus} as the server's host knows it: a child that execs it is a recursive magus. */
    final Optional<Path> launcher;

    Fixture(Path root) throws IOException {
        this(root, Optional.empty());
    }

    Fixture(Path root, Optional<Path> launcher) throws IOException {
        this(root, launcher, dev.magus.server.lifecycle.IdleTimeout.DEFAULT);
    }

    Fixture(Path root, Optional<Path> launcher, dev.magus.server.lifecycle.IdleTimeout idle) throws IOException {
        assumeLinux();
        this.launcher = launcher;
        home = Files.createDirectories(root.resolve("home")).toRealPath();
        workspace = Files.createDirectories(root.resolve("ws")).toRealPath();
        tempBase = Files.createDirectories(root.resolve("tmp")).toRealPath();
        env.put("PATH", Optional.ofNullable(System.getenv("PATH")).orElse("/usr/bin:/bin"));
        env.put("HOME", home.toString());
        env.put("LANG", "C.UTF-8");
        // The fallback a user without XDG_RUNTIME_DIR gets: <home>/.cache/magus-run.
        dir = SocketDir.forUser(env, uid());
        Host host = host();
        server = MagusServer.start(dir, host, Orchestrator.builder(host).meterRegistry(registry).services(services).build(), registry,
                new MagusServer.Settings(LINES, GRAMMAR, idle, false));
    }

    static void assumeLinux() {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        String why = "server test skipped: forwarded runs start children, which needs Linux (os "
                + System.getProperty("os.name") + ")";
        if (!linux) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(linux, why);
    }

    Host host() {
        return new Host(env, home, uid(), Platform.LINUX, List.of(), launcher, tempBase);
    }

    static long uid() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes the workspace's magus.yaml and trusts it, as the person who wrote it would ({@code magus trust}). */
    void yaml(String text) throws IOException {
        Files.writeString(workspace.resolve("magus.yaml"), text);
        dev.magus.workspace.trust.TrustStore.of(env, home).trust(workspace.resolve("magus.yaml"));
    }

    ServerClient client() throws IOException {
        return ServerClient.connect(dir.socket(), Files.readString(dir.tokenFile()).trim());
    }

    Frame.Submit submit(String... argv) {
        return submit(env, Map.of(), Optional.empty(), argv);
    }

    Frame.Submit submit(Map<String, String> clientEnv, Map<String, String> set, Optional<String> sandbox, String... argv) {
        return new Frame.Submit(List.of(argv), workspace.toString(), clientEnv, set, List.of(), sandbox, false, false);
    }

    /** What one forwarded run produced. */
    record Result(Forwarding.Outcome outcome, byte[] stdout, byte[] stderr, List<ObjectNode> events) {
        int status() {
            return ((Forwarding.Outcome.Exited) outcome).status();
        }

        String out() {
            return new String(stdout, java.nio.charset.StandardCharsets.UTF_8);
        }

        List<String> types() {
            return events.stream().map(e -> e.path("type").asText()).toList();
        }

        List<String> codes() {
            return events.stream().filter(e -> e.has("code")).map(e -> e.path("code").asText()).toList();
        }
    }

    Result forward(Frame.Submit submit) throws IOException {
        try (ServerClient c = client()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            List<ObjectNode> events = Collections.synchronizedList(new ArrayList<>());
            Forwarding.Outcome o = Forwarding.forward(c, submit, null, out, err, events::add);
            return new Result(o, out.toByteArray(), err.toByteArray(), events);
        }
    }

    @Override
    public void close() {
        server.close();
        services.close();
        registry.close();
    }
}
