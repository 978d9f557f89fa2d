package dev.magus.orchestrator.pipeline;

import dev.magus.policy.HostFacts;
import dev.magus.policy.Policy;
import dev.magus.policy.PolicyBuilder;
import dev.magus.policy.PolicyNote;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.PolicyOrOff;
import dev.magus.orchestrator.run.Grants;
import dev.magus.policy.decl.CommandLineDecl;
import dev.magus.policy.decl.MergedDecl;
import dev.magus.policy.lease.CarriedLease;
import dev.magus.policy.decl.NetworkDecl;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.policy.lease.Narrowing;
import dev.magus.policy.lease.Tree;
import dev.magus.events.Mode;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.lease.LeaseLookup;
import dev.magus.workspace.project.Target;
import dev.magus.workspace.lease.Leasing;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.policy.trust.Untrusted;
import dev.magus.workspace.trust.TrustStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Stage 2: the run's policy, built once from the core footprint and the declared layers, then narrowed by a lease. */
public final class PolicyStage {
    private PolicyStage() {
    }

    /**
     * The command line's {@code --allow}/{@code --pass} are parsed first, under every mode.
     * Mode off builds nothing (and so does not evaluate the declaration). Under any other
     * mode the policy is built or the run stops. A lease on the workspace (or a checkout
     * above it) then narrows the write grant ({@link dev.magus.policy.lease.LeaseNarrowing});
     * a lease that cannot be read or honored stops the run.
     *
     * @throws dev.magus.events.SandboxException MGS2004 when the workspace declaration or the lease cannot be honored
     */
    public static PolicyOrOff build(RunConfig config, HostFacts host) {
        // First, under every mode: a malformed --allow or --pass is refused, never ignored.
        Optional<SandboxDecl> cli = cli(config);
        if (config.mode() == Mode.OFF) {
            return PolicyOrOff.off();
        }
        Layers layers = layers(config, host);
        MergedDecl declared = declared(config, layers, cli);
        PolicyOrOff built = new PolicyBuilder(host).build(config.mode(), config.workspaceRoot(), declared);
        built.policy().ifPresent(PolicyStage::refuseUnhonouredCli);
        return built.policy().<PolicyOrOff>map(p -> narrow(p, host).withNotes(layers.untrusted())).orElse(built);
    }

    /**
     * The layers the workspace's files declare (its sandbox section, the spells its projects
     * bind, the target's), each judged by {@link Untrusted} when this user does not trust the
     * file ({@link TrustStore}): what needs trust is left out and noted. A workspace whose file
     * declares nothing that needs trust never reads the trust store.
     */
    record Layers(SandboxDecl workspace, List<SandboxDecl> spells, Optional<SandboxDecl> target, List<PolicyNote> untrusted) {
    }

    static Layers layers(RunConfig config, HostFacts host) {
        SandboxDecl workspace = config.config().sandbox();
        List<SandboxDecl> spells = config.spellNames().stream().map(n -> config.spells().spell(n)).map(PolicyStage::withHosts)
                .toList();
        Optional<SandboxDecl> target = config.target().map(Target::sandbox);
        if (config.workspaceFile().isEmpty()) {
            return new Layers(workspace, spells, target, List.of());
        }
        Path root = config.workspaceRoot();
        List<Untrusted.Refusal> refused = new ArrayList<>();
        Untrusted.Judged w = Untrusted.judge(workspace, host, root);
        refused.addAll(w.refused());
        List<Untrusted.Judged> s = new ArrayList<>();
        for (int i = 0; i < spells.size(); i++) {
            boolean shipped = config.spells().shipped(config.spellNames().get(i));
            Untrusted.Judged j = shipped ? Untrusted.judge(spells.get(i), host, root) : new Untrusted.Judged(spells.get(i), List.of());
            refused.addAll(j.refused());
            s.add(j);
        }
        Optional<Untrusted.Judged> t = target.map(d -> Untrusted.judge(d, host, root));
        t.ifPresent(j -> refused.addAll(j.refused()));
        if (refused.isEmpty() || TrustStore.of(host.env(), host.home()).trusts(config.workspaceFile().get())) {
            return new Layers(workspace, spells, target, List.of());
        }
        List<PolicyNote> notes = refused.stream()
                .map(r -> new PolicyNote(PolicyNote.Kind.NEEDS_TRUST, r.source(), r.subject(), r.why())).toList();
        return new Layers(w.kept(), s.stream().map(Untrusted.Judged::kept).toList(), t.map(Untrusted.Judged::kept), notes);
    }

    /** The MGS2016 diagnostics of a policy's declarations left out for want of trust, one per line named. */
    public static List<Diagnostic> untrustedDiagnostics(PolicyOrOff policy) {
        List<Diagnostic> out = new ArrayList<>();
        policy.policy().ifPresent(p -> {
            for (PolicyNote n : p.notes()) {
                if (n.kind() == PolicyNote.Kind.NEEDS_TRUST) {
                    out.add(Diagnostic.of(Code.MGS2016, n.origin() + ": " + n.subject() + " is " + n.why()
                            + ", left out: this magus.yaml is not trusted; read it, then run 'magus trust' to honour it",
                            n.subject(), Operation.NONE, Layer.POLICY, n.origin()));
                }
            }
        });
        return out;
    }

    /**
     * A command-line grant the policy builder turned down ({@code --allow ~:rw}: $HOME is never
     * granted as a whole; a path that reaches magus's own state) is MGS2004 naming
     * {@code --allow}, as a malformed one is: the person asked for it on this very run, and the
     * run would otherwise go on with less than asked and say so only in {@code magus policy}.
     * The same entry in magus.yaml stays a note there: it is a standing declaration whose
     * location depends on the host ({@code $XDG_CACHE_HOME=$HOME}).
     */
    static void refuseUnhonouredCli(Policy policy) {
        String cli = DeclLayer.cli().label();
        for (PolicyNote n : policy.notes()) {
            if (n.kind() == PolicyNote.Kind.GRANTS_NOTHING && n.origin().equals(cli)) {
                throw CommandLineDecl.unhonoured(n.subject(),
                        n.subject() + " " + n.describe() + "; the run is refused rather than run with less than asked");
            }
        }
    }

    /** The command line's one-run grants as the {@code cli} layer; empty without any. */
    static Optional<SandboxDecl> cli(RunConfig config) {
        Grants g = config.request().grants();
        return g.isEmpty() ? Optional.empty()
                : Optional.of(CommandLineDecl.parse(g.allow(), g.pass(), config.workingDir()));
    }

    /**
     * One merge for every layer, union only: the workspace's, then the spells this process gets
     * (each loaded now, so a spell's declaration that cannot be honored stops the run with its
     * MGS2004), then the target's, then the command line's one-run grants.
     */
    public static MergedDecl declared(RunConfig config, HostFacts host) {
        return declared(config, layers(config, host), cli(config));
    }

    static MergedDecl declared(RunConfig config, Layers layers, Optional<SandboxDecl> cli) {
        MergedDecl merged = MergedDecl.merge(layers.workspace(), layers.spells(), layers.target(), cli);
        // --allow-host is the last layer: a person widens their own run's reach, never its mode.
        return merged.withNetwork(merged.network().withHosts(NetworkDecl.flagHosts(config.request().allowHosts())));
    }

    /** A spell's declaration with its tool's package registries among its network hosts (used by mode proxy). */
    private static SandboxDecl withHosts(dev.magus.workspace.spell.Spell spell) {
        SandboxDecl d = spell.sandbox();
        if (spell.registryHosts().isEmpty()) {
            return d;
        }
        List<dev.magus.policy.net.HostPattern> hosts = new java.util.ArrayList<>(d.network().allow());
        dev.magus.policy.decl.Site site = dev.magus.policy.decl.Site.of(d.layer().label(), "registryHosts");
        for (int i = 0; i < spell.registryHosts().size(); i++) {
            hosts.add(dev.magus.policy.decl.NetworkDecl.host(spell.registryHosts().get(i), site, "registryHosts[" + i + "]"));
        }
        dev.magus.policy.decl.NetworkDecl n = d.network();
        return d.withNetwork(new dev.magus.policy.decl.NetworkDecl(n.mode(), hosts, n.ports(), n.bind(), n.unix()));
    }

    /**
     * The narrowing by every lease that holds: the one a parent run carried ({@code MAGUS_LEASE})
     * and the checkout's own. The policy's rules become the narrowed ones (what the kernel gets)
     * and each write is checked against the jobs' globs as well ({@link Policy#narrowedBy}).
     */
    static Policy narrow(Policy p, HostFacts host) {
        Leasing leasing = leasing(p, host);
        Policy out = p;
        for (Narrowing.Narrowed n : leasing.applied()) {
            out = out.narrowedBy(n);
        }
        return out;
    }

    /**
     * The leases of a run with the layers' policy {@code p}, for {@code magus policy} too.
     *
     * @throws dev.magus.events.SandboxException MGS2004 when a lease cannot be read or honored
     */
    public static Leasing leasing(Policy p, HostFacts host) {
        LeaseLookup lookup = new LeaseLookup(StateDir.of(host.env(), host.home()), host.magusCacheDir());
        return lookup.leasing(p.ruleset(), p.workspaceRoot(), host.privateTemp(), Tree.real(), CarriedLease.from(host.env()));
    }
}
