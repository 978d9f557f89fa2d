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
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.policy.lease.Narrowing;
import dev.magus.policy.lease.Tree;
import dev.magus.events.Mode;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.lease.LeaseLookup;
import dev.magus.workspace.project.Target;
import dev.magus.workspace.lease.Leasing;
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
        MergedDecl declared = declared(config, cli);
        PolicyOrOff built = new PolicyBuilder(host).build(config.mode(), config.workspaceRoot(), declared);
        built.policy().ifPresent(PolicyStage::refuseUnhonouredCli);
        return built.policy().<PolicyOrOff>map(p -> narrow(p, host)).orElse(built);
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
    public static MergedDecl declared(RunConfig config) {
        return declared(config, cli(config));
    }

    static MergedDecl declared(RunConfig config, Optional<SandboxDecl> cli) {
        SandboxDecl workspace = config.config().sandbox();
        List<SandboxDecl> spells = config.spellNames().stream().map(n -> config.spells().spell(n)).map(PolicyStage::withHosts)
                .toList();
        MergedDecl merged = MergedDecl.merge(workspace, spells, config.target().map(Target::sandbox), cli);
        // --allow-host is the last layer: a person widens their own run's reach, never its mode.
        return merged.withNetwork(merged.network().withHosts(config.request().allowHosts()));
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
            hosts.add(dev.magus.policy.net.NetworkDecl.host(spell.registryHosts().get(i), site, "registryHosts[" + i + "]"));
        }
        dev.magus.policy.net.NetworkDecl n = d.network();
        return d.withNetwork(new dev.magus.policy.net.NetworkDecl(n.mode(), hosts, n.ports(), n.bind(), n.unix()));
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
