package dev.magus.orchestrator.binding;

import dev.magus.env.child.SandboxDirs;
import dev.magus.events.Diagnostic;
import dev.magus.events.Mode;
import dev.magus.events.RunEvent;
import dev.magus.events.SandboxException;
import dev.magus.orchestrator.Orchestrator;
import dev.magus.orchestrator.network.HostResolver;
import dev.magus.orchestrator.pipeline.ConfigStage;
import dev.magus.orchestrator.pipeline.EnvStage;
import dev.magus.orchestrator.pipeline.PolicyStage;
import dev.magus.orchestrator.pipeline.RunConfig;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.HostDirs;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.Submission;
import dev.magus.orchestrator.temp.Trees;
import dev.magus.policy.HostFacts;
import dev.magus.policy.PolicyOrOff;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.netty.resources.ConnectionProvider;

/**
 * A binding-layer session: one policy, built once by the run pipeline's own stages for a working
 * directory and a request's grants (its workspace's {@code magus.yaml}, spells, target and lease,
 * the request's {@code --allow}/{@code --pass}), and one event stream. Code that runs inside the
 * JVM reaches files through {@link #files()}, and starts confined children through
 * {@link #submit(List)}: both are held to that policy, and both report on {@link #events()}. A
 * refusal is a {@link SandboxException} carrying the MGS2001/2002 diagnostic with
 * {@code layer=binding}, emitted on the stream before it is thrown.
 *
 * <p>What it cannot hold: code that opens files itself (a library calling {@code java.nio} or
 * native code) never passes through here. The kernel layer confines children; the binding layer
 * covers only the calls made through it.
 */
public final class Sandbox implements AutoCloseable {
    private final String id;
    private final Orchestrator orchestrator;
    private final Host host;
    private final RunRequest template;
    private final RunConfig config;
    private final PolicyOrOff policy;
    private final Path temp;
    private final Sinks.Many<RunEvent> events = Sinks.many().replay().limit(4096);
    private final SandboxFiles files;
    private final SandboxArchives archives;
    private final SortedMap<String, String> env;
    /** The pool of {@link #http}'s connections; made here (no thread), disposed by {@link #close}. */
    private final ConnectionProvider connections;
    // Guarded by this.
    private boolean closed;

    private Sandbox(Orchestrator orchestrator, Host host, RunRequest template, RunConfig config, PolicyOrOff policy, Path temp,
            SortedMap<String, String> env) {
        this.id = "binding-" + UUID.randomUUID();
        this.orchestrator = orchestrator;
        this.host = host;
        this.template = template;
        this.config = config;
        this.policy = policy;
        this.temp = temp;
        this.files = new SandboxFiles(policy, template.workingDir(), this::refused);
        this.archives = new SandboxArchives(files);
        this.env = Collections.unmodifiableSortedMap(new TreeMap<>(env));
        this.connections = ConnectionProvider.create(id);
    }

    /**
     * Opens a session for {@code template}'s working directory and grants ({@code argv} is not
     * used; {@link #submit(List)} gives each child its own).
     *
     * @throws SandboxException MGS2004 when the workspace's configuration or lease cannot be
     *         honoured, MGS2010 for a mode weaker than the floor: as a run would be refused
     */
    public static Sandbox open(Orchestrator orchestrator, Host host, RunRequest template) {
        Objects.requireNonNull(orchestrator, "orchestrator");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(template, "template");
        RunConfig config = ConfigStage.resolve("binding", template, host.env(), host.home(),
                orchestrator.services().workspaces());
        Path temp = config.mode() == Mode.OFF ? null : HostDirs.createPrivateTemp(host);
        try {
            HostFacts facts = host.facts(temp == null ? host.tempBase() : temp);
            PolicyOrOff policy = temp == null ? PolicyOrOff.off() : PolicyStage.build(config, facts);
            SandboxDirs dirs = new SandboxDirs(temp == null ? host.tempBase() : temp, facts.magusCacheDir(), host.stateDir().dir());
            SortedMap<String, String> env = EnvStage.build(config, policy, host.env(), EnvStage.overlay(template), dirs, false,
                    Optional.empty()).variables();
            return new Sandbox(orchestrator, host, template, config, policy, temp, env);
        } catch (RuntimeException e) {
            if (temp != null) {
                Trees.deleteQuietly(temp);
            }
            throw e;
        }
    }

    /** The session's id, the {@code runId} of the events it emits itself. */
    public String id() {
        return id;
    }

    /** The session's mode, as a run started from the same directory would get it. */
    public Mode mode() {
        return config.mode();
    }

    /** The policy every call is checked against. */
    public PolicyOrOff policy() {
        return policy;
    }

    /**
     * The environment a child of this session gets: the host's variables through the allowlist
     * and the workspace's passthrough, the request's {@code --env}/{@code --unset} on top, the
     * session's private {@code TMPDIR}. In-process code that reads variables reads them here.
     */
    public SortedMap<String, String> env() {
        return env;
    }

    /** Reads, writes, lists, moves and deletes files under the session's policy. */
    public SandboxFiles files() {
        return files;
    }

    /** Extracts zip and tar archives, every entry held to the policy and to its target. */
    public SandboxArchives archives() {
        return archives;
    }

    /** An HTTP client held to the run's network policy, resolving names with the system's resolver. */
    public SandboxHttp http() {
        return http(HostResolver.system());
    }

    /** An HTTP client held to the run's network policy, resolving names with {@code resolver}. */
    public SandboxHttp http(HostResolver resolver) {
        return new SandboxHttp(policy, resolver, this::refused, this::connections, orchestrator.services().proxyLoops());
    }

    /**
     * Everything the session reports: its own refusals ({@code layer=binding}), and every event of
     * the children it started (their output, their kernel-layer denials, their exit), in the order
     * they happened. Replays what came before to a late subscriber (up to 4 096 events).
     */
    public Flux<RunEvent> events() {
        return events.asFlux();
    }

    /**
     * Starts {@code argv} as a confined child with the session's working directory and grants,
     * exactly as {@code magus run} would, its events on {@link #events()} as well as on the run's.
     */
    public Run submit(List<String> argv) {
        return orchestrator.submit(Submission.of(template.withArgv(argv)).on(host).observedBy(this::emit));
    }

    private void refused(Diagnostic diagnostic) {
        RunEvent.Diag event = new RunEvent.Diag(id, Instant.now(), diagnostic);
        emit(event);
        // The orchestrator's sinks see the children's events already; the session's own go there too.
        orchestrator.report(event);
    }

    /** Onto the stream; after {@link #close()} a child still going is no longer listened to, and nothing is thrown at it. */
    private synchronized void emit(RunEvent event) {
        events.tryEmitNext(event);
    }

    private synchronized ConnectionProvider connections() {
        if (closed) {
            throw new IllegalStateException("the session is closed");
        }
        return connections;
    }

    /**
     * Ends the stream, closes the HTTP connections (a request after this fails) and removes the
     * session's private temp dir. Children already started go on.
     */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            events.tryEmitComplete();
        }
        connections.dispose();
        if (temp != null) {
            Trees.deleteQuietly(temp);
        }
    }
}
