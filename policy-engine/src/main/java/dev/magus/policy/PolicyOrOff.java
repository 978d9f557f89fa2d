package dev.magus.policy;

import dev.magus.policy.fs.Access;
import dev.magus.events.Mode;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What a run is confined by: a {@link Policy}, or {@link Off}. The specification's "nil
 * policy" is {@code Off}: mode off, every binding check passes through. Modelled as a sealed
 * pair rather than {@code Optional<Policy>} so that a binding calls {@link #check} the same way
 * in both cases and cannot forget the off case, while {@code switch} still tells them apart.
 */
public sealed interface PolicyOrOff permits Policy, PolicyOrOff.Off {

    Mode mode();

    /**
     * The binding-layer check of one access.
     *
     * @param op   the access
     * @param path as requested; a relative one is taken against {@code cwd}
     * @param cwd  the working directory of the request (absolute)
     */
    Verdict check(Access op, Path path, Path cwd);

    /** The policy, or empty when the sandbox is off. */
    Optional<Policy> policy();

    static PolicyOrOff off() {
        return Off.INSTANCE;
    }

    /** The sandbox is off: nothing is built, nothing is refused. */
    final class Off implements PolicyOrOff {
        static final Off INSTANCE = new Off();

        private Off() {
        }

        @Override
        public Mode mode() {
            return Mode.OFF;
        }

        /** Always allowed, on the request made absolute against {@code cwd} (not resolved: nothing is checked). */
        @Override
        public Verdict check(Access op, Path path, Path cwd) {
            return new Verdict.Allowed(cwd.resolve(path));
        }

        @Override
        public Optional<Policy> policy() {
            return Optional.empty();
        }

        @Override
        public String toString() {
            return "PolicyOrOff.Off";
        }
    }
}
