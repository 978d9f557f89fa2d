package dev.magus.policy;

import dev.magus.events.DetailKey;
import dev.magus.env.Allowlist;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.fs.Ruleset;
import dev.magus.policy.lease.Narrowing;
import dev.magus.events.Mode;
import dev.magus.policy.net.NetworkPolicy;
import dev.magus.policy.path.PathResolver;
import dev.magus.policy.path.Resolution;
import dev.magus.policy.path.Traced;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The allowlist of one workspace's runs, built once by {@link PolicyBuilder} and never changed.
 *
 * @param mode          best-effort or required (off has no policy: {@link PolicyOrOff.Off})
 * @param workspaceRoot the resolved workspace root
 * @param home          the user's home directory, for {@code ~} in messages and hints
 * @param ruleset       every rule, core and declared, merged (each rule's origin names its layers)
 * @param env           every layer's declared passthrough; the scrubber adds its platform baseline
 * @param controlFiles  the write targets refused even inside a write grant
 * @param notes         what was skipped or grants nothing on this host, for {@code magus policy}
 * @param resolver      the resolver the rules were resolved with (remembering nothing), so {@link #check} compares alike
 * @param leases        the leases that narrowed {@code ruleset}, in order; a write passes each one's glob check too
 * @param network       the merged {@code sandbox.network}, held by the kernel's TCP rules and the proxy, not the binding layer
 */
public record Policy(
        Mode mode,
        Path workspaceRoot,
        Path home,
        Ruleset ruleset,
        Allowlist env,
        ControlFiles controlFiles,
        List<PolicyNote> notes,
        PathResolver resolver,
        List<Narrowing.Narrowed> leases,
        NetworkPolicy network) implements PolicyOrOff {

    /** The resolver of a policy made without one: the real filesystem, the kernel asked first. */
    private static final PathResolver REAL = new PathResolver();
    private static final String SOURCE = "binding";

    public Policy {
        Objects.requireNonNull(mode, "mode");
        if (mode == Mode.OFF) {
            throw new IllegalArgumentException("mode off has no policy: use PolicyOrOff.off()");
        }
        Objects.requireNonNull(workspaceRoot, "workspaceRoot");
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(ruleset, "ruleset");
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(controlFiles, "controlFiles");
        notes = List.copyOf(notes);
        Objects.requireNonNull(resolver, "resolver");
        leases = List.copyOf(leases);
        Objects.requireNonNull(network, "network");
        if (resolver.isCaching()) {
            // Memory belongs beside a policy (PolicyChecker), which says when to forget; never in it.
            throw new IllegalArgumentException("a policy checks with a resolver that remembers nothing: " + resolver);
        }
    }

    /** A policy whose checks resolve on the real filesystem. */
    public Policy(Mode mode, Path workspaceRoot, Path home, Ruleset ruleset, Allowlist env, ControlFiles controlFiles,
            List<PolicyNote> notes) {
        this(mode, workspaceRoot, home, ruleset, env, controlFiles, notes, REAL);
    }

    /** A policy no lease narrowed. */
    public Policy(Mode mode, Path workspaceRoot, Path home, Ruleset ruleset, Allowlist env, ControlFiles controlFiles,
            List<PolicyNote> notes, PathResolver resolver) {
        this(mode, workspaceRoot, home, ruleset, env, controlFiles, notes, resolver, List.of(), NetworkPolicy.OPEN);
    }

    /** A policy with the network open, as the specification's sandbox has it. */
    public Policy(Mode mode, Path workspaceRoot, Path home, Ruleset ruleset, Allowlist env, ControlFiles controlFiles,
            List<PolicyNote> notes, PathResolver resolver, List<Narrowing.Narrowed> leases) {
        this(mode, workspaceRoot, home, ruleset, env, controlFiles, notes, resolver, leases, NetworkPolicy.OPEN);
    }

    /** This policy, also noting {@code more} (what was left out before it was built). */
    public Policy withNotes(List<PolicyNote> more) {
        if (more.isEmpty()) {
            return this;
        }
        List<PolicyNote> all = new java.util.ArrayList<>(more);
        all.addAll(notes);
        return new Policy(mode, workspaceRoot, home, ruleset, env, controlFiles, all, resolver, leases, network);
    }

    /** This policy with {@code network} as its network policy ({@code --allow-host} added, say). */
    public Policy withNetwork(NetworkPolicy network) {
        return new Policy(mode, workspaceRoot, home, ruleset, env, controlFiles, notes, resolver, leases, network);
    }

    /**
     * This policy narrowed by {@code lease}: its rules become the narrowed ones (what the kernel
     * gets), and each write is checked against the lease's globs as well.
     *
     * @param lease planned ({@link dev.magus.policy.lease.LeaseNarrowing#plan}) on this policy's rules
     */
    public Policy narrowedBy(Narrowing.Narrowed lease) {
        List<Narrowing.Narrowed> all = new java.util.ArrayList<>(leases);
        all.add(lease);
        return new Policy(mode, workspaceRoot, home, lease.ruleset(), env, controlFiles, notes, resolver, all, network);
    }

    /**
     * A refusal from either layer with the job named when a lease caused it: the kernel's
     * (inferred from a child's output, or audited) are named here, the binding layer's by
     * {@link #check} itself.
     */
    public Diagnostic attribute(Diagnostic d) {
        Diagnostic out = d;
        for (Narrowing.Narrowed lease : leases) {
            out = lease.attribute(out);
        }
        return out;
    }

    /** The merged rules, ordered by path, each with the layers that granted it. */
    public List<Rule> rules() {
        return ruleset.rules();
    }

    @Override
    public Optional<Policy> policy() {
        return Optional.of(this);
    }

    /**
     * The binding-layer check. The path is resolved the way the kernel walks it, and the answer
     * is about where it leads: a read outside every read rule is MGS2001; a write outside every
     * write rule is MGS2002; an exec of a binary outside every exec rule is MGS2007 (check the
     * path {@link LookPath#find} returns); more than 40 symbolic links is MGS2009.
     *
     * <p>A write is also MGS2002, even inside a write grant, when a control file is the file it
     * reaches, any symbolic link it goes through, or the path as written: {@code .envrc} that
     * is a link to {@code envrc.real} is still what direnv reads next, and {@code lnk/.envrc}
     * with {@code lnk} leading out of the workspace is still {@code .envrc} to a shell in
     * {@code lnk}.
     */
    @Override
    public Verdict check(Access op, Path path, Path cwd) {
        if (op == Access.WRITE) {
            return writeVerdict(path, cwd, resolver.trace(path, cwd));
        }
        return verdict(op, path, resolver.resolve(path, cwd));
    }

    /**
     * The verdict on reading or executing {@code path} once resolved to {@code resolution} (by
     * any resolver); a write needs the links too: {@link #writeVerdict}.
     */
    Verdict verdict(Access op, Path path, Resolution resolution) {
        if (op == Access.WRITE) {
            throw new IllegalArgumentException("a write is checked with the links it goes through: writeVerdict");
        }
        return ruleVerdict(op, path, resolution);
    }

    /** The verdict on writing {@code path}, asked from {@code cwd}, once traced to {@code traced} (by any resolver). */
    Verdict writeVerdict(Path path, Path cwd, Traced traced) {
        Verdict byRules = ruleVerdict(Access.WRITE, path, traced.resolution());
        if (!(byRules instanceof Verdict.Allowed allowed)) {
            if (traced.resolution() instanceof Resolution.Resolved r) {
                // Outside the rules only because a lease took the write away: the job's globs are
                // the reason, and an allow in magus.yaml would not help (the lease narrows it too).
                for (Narrowing.Narrowed lease : leases) {
                    if (lease.refuses(r.path())) {
                        return new Verdict.Denied(lease.denial(path, r.path()));
                    }
                }
            }
            return byRules;
        }
        Path resolved = allowed.resolved();
        Optional<String> control = controlFiles.match(resolved);
        if (control.isPresent()) {
            return new Verdict.Denied(controlFile(path, resolved, resolved, control.get(), ""));
        }
        for (Path link : traced.links()) {
            control = controlFiles.match(link);
            // A link standing for a whole git dir leads into it, and what in a git dir is a
            // control file is refused by where the write lands (or by how it was written).
            if (control.isPresent() && !control.get().equals(ControlFiles.GIT) && !control.get().equals(ControlFiles.GIT_DIR)) {
                return new Verdict.Denied(controlFile(path, resolved, link, control.get(),
                        ", a symbolic link to " + Locations.display(resolved, home) + ","));
            }
        }
        Path written = (path.isAbsolute() ? path : cwd.toAbsolutePath().resolve(path)).normalize();
        control = controlFiles.match(written);
        if (control.isPresent()) {
            return new Verdict.Denied(controlFile(path, resolved, written, control.get(),
                    " (as written; it resolves to " + Locations.display(resolved, home) + ")"));
        }
        // The kernel may grant a whole directory for a glob like docs/*.md: within it, only the
        // glob itself allows (LeaseNarrowing's table).
        for (Narrowing.Narrowed lease : leases) {
            if (!lease.permitsWrite(resolved)) {
                return new Verdict.Denied(lease.denial(path, resolved));
            }
        }
        return allowed;
    }

    /** The verdict of the rules alone: a loop, or outside every rule with the bit, or allowed. */
    private Verdict ruleVerdict(Access op, Path path, Resolution resolution) {
        if (resolution instanceof Resolution.TooManyLinks loop) {
            return new Verdict.Denied(new Diagnostic(Code.MGS2009,
                    op.operation().label() + " denied: too many symbolic links resolving " + path
                            + " (gave up at " + loop.reached() + ")",
                    loop.request().toString(), op.operation(), Layer.BINDING, SOURCE,
                    Map.of(DetailKey.REQUESTED.key(), path.toString(), DetailKey.REACHED.key(), loop.reached().toString())));
        }
        Path resolved = ((Resolution.Resolved) resolution).path();
        if (!ruleset.permits(resolved, op)) {
            return new Verdict.Denied(outside(op, path, resolved));
        }
        return new Verdict.Allowed(resolved);
    }

    private Diagnostic outside(Access op, Path requested, Path resolved) {
        Code code = switch (op) {
            case READ -> Code.MGS2001;
            case WRITE -> Code.MGS2002;
            case EXEC -> Code.MGS2007;
        };
        String what = switch (op) {
            case READ -> "outside every read rule";
            case WRITE -> "outside every write rule";
            case EXEC -> "a binary outside every exec rule";
        };
        String shown = Locations.display(resolved, home);
        String via = requested.toString().equals(resolved.toString()) ? "" : " (requested as " + requested + ")";
        Map<String, String> details = new TreeMap<>();
        details.put(DetailKey.REQUESTED.key(), requested.toString());
        details.put(DetailKey.NEAREST_RULE.key(), ruleset.nearest(resolved, op).map(this::describe).orElse("none"));
        DenialAdvice advice = DenialAdvice.classify(op, resolved, home, ruleset,
                p -> Files.exists(p, LinkOption.NOFOLLOW_LINKS), Files::isDirectory);
        details.put(DetailKey.CLASS.key(), advice.label());
        String said = "";
        if (advice instanceof DenialAdvice.Hint hint) {
            details.put(DetailKey.ALLOW_YAML.key(), AllowHint.yaml(hint, home));
            // The same declaration as data, for magus learn, which merges many into one file.
            details.put(DetailKey.ALLOW_PATH.key(), Locations.display(hint.path(), home));
            details.put(DetailKey.ALLOW_MODE.key(), hint.mode().declared());
            if (hint.missing()) {
                details.put(DetailKey.ALLOW_MISSING.key(), "true");
            }
            said = ShimAdvice.of(resolved).or(() -> UserHomeAdvice.of(resolved, home)).orElse("");
        } else if (advice instanceof DenialAdvice.AttackLike attack) {
            details.put(DetailKey.ATTACK.key(), attack.why());
            said = "; this looks like an attack (" + attack.why() + "), so nothing is suggested";
        } else if (advice instanceof DenialAdvice.Benign benign) {
            details.put(DetailKey.BENIGN.key(), benign.why());
            said = " (benign: " + benign.why() + ")";
        }
        return new Diagnostic(code, op.operation().label() + " denied: " + shown + via + " is " + what + said,
                resolved.toString(), op.operation(), Layer.BINDING, SOURCE, details);
    }

    /**
     * @param control the control file that matched: the resolved target, a link on the way, or the path as written
     * @param how     how {@code control} relates to the write, shown after its name; empty for the target itself
     */
    private Diagnostic controlFile(Path requested, Path resolved, Path control, String entry, String how) {
        Map<String, String> details = new TreeMap<>();
        details.put(DetailKey.REQUESTED.key(), requested.toString());
        details.put(DetailKey.CONTROL_FILE.key(), entry);
        if (!control.equals(resolved)) {
            details.put(DetailKey.RESOLVED.key(), resolved.toString());
        }
        return new Diagnostic(Code.MGS2002,
                "write denied: " + Locations.display(control, home) + how + " is a control file (" + entry
                        + "): it holds instructions another tool follows later, outside any sandbox,"
                        + " so no declaration allows writing it",
                control.toString(), Access.WRITE.operation(), Layer.BINDING, SOURCE, details);
    }

    private String describe(Rule r) {
        return Locations.display(r.path(), home) + " " + r.mode().declared() + " (" + r.origin() + ")";
    }
}
