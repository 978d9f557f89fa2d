package dev.magus.server;

import dev.magus.env.platform.Platform;
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
     * The words of run the protocol tests say, standing in for the command line's model, which the
     * server module cannot reach (cli's tests parse with the real one): {@code -v}, {@code -q},
     * {@code --stdin}, {@code --no-stdin}, {@code --env K=V}, {@code --unset K}, {@code --sandbox=MODE},
     * {@code --allow X}, {@code --pass X}, {@code --op SPELL}, {@code --target NAME},
     * {@code --allow-host H}, {@code --fail-on-denial}, {@code --supervise}, {@code --ask},
     * {@code --ask-timeout SECONDS}, then the command; any other word is the client's own ({@code Local}).
     */
    static final RunGrammar GRAMMAR = c -> {
        List<String> a = c.args();
        if (a.isEmpty() || !a.get(0).equals("run")) {
            return new RunGrammar.Local("");
        }
        boolean verbose = false;
        boolean quiet = false;
        boolean stdin = true;
        boolean failOnDenial = false;
        boolean supervise = false;
        boolean ask = false;
        java.time.Duration askTimeout = java.time.Duration.ofSeconds(10);
        Optional<String> sandbox = Optional.empty();
        Optional<String> op = Optional.empty();
        Optional<String> target = Optional.empty();
        Map<String, String> set = new LinkedHashMap<>();
        List<String> unset = new ArrayList<>();
        List<String> allow = new ArrayList<>();
        List<String> pass = new ArrayList<>();
        List<String> hosts = new ArrayList<>();
        int i = 1;
        for (; i < a.size() && a.get(i).startsWith("-"); i++) {
            String w = a.get(i);
            if (w.equals("--")) {
                i++;
                break;
            } else if (w.startsWith("--sandbox=")) {
                sandbox = Optional.of(w.substring("--sandbox=".length()));
                continue;
            }
            switch (w) {
                case "-v" -> verbose = true;
                case "-q" -> quiet = true;
                case "--stdin" -> stdin = true;
                case "--no-stdin" -> stdin = false;
                case "--fail-on-denial" -> failOnDenial = true;
                case "--supervise" -> supervise = true;
                case "--ask" -> ask = true;
                case "--ask-timeout" -> askTimeout = java.time.Duration.ofSeconds(Long.parseLong(a.get(++i)));
                case "--env" -> {
                    String kv = a.get(++i);
                    set.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
                }
                case "--unset" -> unset.add(a.get(++i));
                case "--allow" -> allow.add(a.get(++i));
                case "--pass" -> pass.add(a.get(++i));
                case "--allow-host" -> hosts.add(a.get(++i));
                case "--op" -> op = Optional.of(a.get(++i));
                case "--target" -> target = Optional.of(a.get(++i));
                default -> {
                    return new RunGrammar.Local("");
                }
            }
        }
        return new RunGrammar.Serve(new ServedRun(a.subList(i, a.size()), c.cwd(), c.env(), set, unset, sandbox, stdin,
                allow, pass, op, target, hosts, verbose, quiet, failOnDenial, supervise,
                ask ? Optional.of(askTimeout) : Optional.empty()));
    };

    /**
     * magus's lines as the server writes them on a forwarded run's stderr, shaped as the command
     * line's (which the server module cannot reach): code, message, source (and details at -v), where
     * to read more.
     */
    static final RunLines LINES = new RunLines() {
        @Override
        public Optional<String> diagnostic(dev.magus.events.Diagnostic d, boolean verbose, boolean quiet) {
            return d.severity() == dev.magus.events.Severity.DEBUG && !verbose ? Optional.empty()
                    : Optional.of("magus: " + d.code() + " " + d.message() + " [" + d.source() + "]"
                            + (verbose && !d.details().isEmpty() ? " " + new java.util.TreeMap<>(d.details()) : "")
                            + "; see 'magus explain " + d.code() + "'");
        }

        /** A run given {@code --sandbox=off} says it is unconfined (the command line's says so of any run in mode off). */
        @Override
        public Optional<String> started(dev.magus.events.RunEvent.Started started, Path cwd, Optional<String> sandbox,
                List<String> argv, boolean quiet) {
            return started.mode() == dev.magus.events.Mode.OFF && sandbox.equals(Optional.of("off"))
                    ? Optional.of("magus: unconfined (--sandbox=off)") : Optional.empty();
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

    /** {@code magus run --no-stdin -- argv} in the workspace, with this fixture's environment. */
    Frame.Command run(String... argv) {
        return run(env, List.of(), argv);
    }

    /** {@code magus run --no-stdin OPTIONS -- argv} in the workspace, from a client whose environment is {@code clientEnv}. */
    Frame.Command run(Map<String, String> clientEnv, List<String> options, String... argv) {
        return words(clientEnv, workspace.toString(), options, argv);
    }

    /** {@code magus run --no-stdin OPTIONS -- argv} in {@code cwd}. */
    static Frame.Command words(Map<String, String> clientEnv, String cwd, List<String> options, String... argv) {
        List<String> words = new ArrayList<>(List.of("run", "--no-stdin"));
        words.addAll(options);
        words.add("--");
        words.addAll(List.of(argv));
        return new Frame.Command(words, cwd, clientEnv);
    }

    /** What one forwarded run produced, as a client gets it. */
    record Result(Forwarding.Outcome outcome, byte[] stdout, byte[] stderr) {
        int status() {
            return ((Forwarding.Outcome.Exited) outcome).status();
        }

        String out() {
            return new String(stdout, java.nio.charset.StandardCharsets.UTF_8);
        }

        /** magus's own lines on the run's stderr. */
        List<String> lines() {
            return new String(stderr, java.nio.charset.StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("magus: "))
                    .toList();
        }

        /** The codes of magus's diagnostic lines, in order. */
        List<String> codes() {
            return lines().stream().map(l -> l.split(" ")[1]).filter(c -> c.matches("MGS[0-9]{4}")).toList();
        }
    }

    Result forward(Frame.Command command) throws IOException {
        try (ServerClient c = client()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Forwarding.Outcome o = Forwarding.forward(c, command, null, out, err);
            return new Result(o, out.toByteArray(), err.toByteArray());
        }
    }

    @Override
    public void close() {
        server.close();
        services.close();
        registry.close();
    }
}
