package dev.magus.landlock.launch;

import dev.magus.events.Diagnostic;
import dev.magus.landlock.abi.Decision;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.compile.CompiledRuleset;
import dev.magus.landlock.compile.NetRules;
import dev.magus.landlock.seccomp.SocketRules;
import dev.magus.policy.net.NetworkMode;
import dev.magus.policy.fs.Rule;
import dev.magus.events.Mode;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;

/**
 * How the launcher confines the children of one policy: a compiled kernel ruleset, or none
 * (mode off, or best-effort on a host without Landlock). Built once per policy; close it with
 * the policy.
 */
public sealed interface Confinement extends AutoCloseable {

    Decision decision();

    default Mode mode() {
        return decision().mode();
    }

    /** MGS2005 for best-effort on a host that leaves rights unenforced; report it once per top-level invocation. */
    default Optional<Diagnostic> warning() {
        Decision d = decision();
        if (d instanceof Decision.Confine c) {
            return c.warning();
        }
        if (d instanceof Decision.Unconfined u) {
            return u.warning();
        }
        return Optional.empty();
    }

    @Override
    void close();

    /**
     * Children run under {@code ruleset}, with no_new_privs, the seccomp filter of
     * {@code sockets} and, for root, Docker's capabilities (minus mknod and net_raw).
     */
    record Kernel(Decision.Confine decision, CompiledRuleset ruleset, SocketRules sockets) implements Confinement {
        public Kernel {
            Objects.requireNonNull(decision, "decision");
            Objects.requireNonNull(ruleset, "ruleset");
            Objects.requireNonNull(sockets, "sockets");
        }

        /** With the filter of network {@code open} and no Unix sockets declared. */
        public Kernel(Decision.Confine decision, CompiledRuleset ruleset) {
            this(decision, ruleset, SocketRules.of(NetworkMode.OPEN, false));
        }

        @Override
        public void close() {
            ruleset.close();
        }
    }

    /** Children run without a kernel domain. Never in required mode. */
    record None(Decision.Unconfined decision) implements Confinement {
        public None {
            Objects.requireNonNull(decision, "decision");
        }

        @Override
        public void close() {
        }
    }

    /**
     * Decides from the mode and the probed ABI, then compiles the rules when the decision is
     * to confine.
     *
     * @throws dev.magus.events.SandboxException MGS2012 when required mode meets an ABI below 3
     */
    static Confinement prepare(Mode mode, Collection<Rule> rules, LandlockProbe probe) {
        return prepare(mode, rules, NetRules.OPEN, probe);
    }

    /**
     * {@link #prepare(Mode, Collection, LandlockProbe)} with the run's TCP rules: handled from
     * ABI 4; below it named in MGS2005 (best-effort) or refused with MGS2012 (required).
     */
    static Confinement prepare(Mode mode, Collection<Rule> rules, NetRules net, LandlockProbe probe) {
        return prepare(mode, rules, net, SocketRules.of(net.mode(), false), probe);
    }

    /**
     * {@link #prepare(Mode, Collection, NetRules, LandlockProbe)} with the run's socket rules
     * (the seccomp layer, installed with every kernel confinement, MGS2015).
     */
    static Confinement prepare(Mode mode, Collection<Rule> rules, NetRules net, SocketRules sockets,
            LandlockProbe probe) {
        Decision d = Decision.decide(mode, mode == Mode.OFF ? 0 : probe.abi(),
                net.confines() ? Optional.of(net.unenforcedPhrase()) : Optional.empty());
        if (d instanceof Decision.Refuse r) {
            throw r.exception();
        }
        if (d instanceof Decision.Confine c) {
            return new Kernel(c, CompiledRuleset.compile(rules, net, c.abi()), sockets);
        }
        return new None((Decision.Unconfined) d);
    }

    /** Mode off: no policy, no kernel layer. */
    static Confinement off() {
        return new None(new Decision.Unconfined(Mode.OFF, Optional.empty()));
    }
}
