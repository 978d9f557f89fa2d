package dev.magus.orchestrator.run;

import dev.magus.events.Code;
import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.policy.DenialAdvice;
import java.util.Set;

/**
 * {@code --fail-on-denial}: the status of a run whose child exited 0 although something it asked
 * for was refused while it ran, so that CI can fail on a denial the child itself shrugged off.
 *
 * <p>What counts is a refusal of the child's own access: a read, write or exec the kernel refused,
 * a connection outside the network policy, a refused socket, and a write the after-run audit put
 * back. A known harmless runtime probe ({@code benign}, such as every JVM's
 * {@code /proc/self/coredump_filter}) does not, nor a tool's silent probe that magus knows of
 * without the tool saying a word ({@link DetailKey#QUIET}): the child's code never asked for
 * them, and every Java build would otherwise fail. Nor an access the run's approver allowed
 * ({@code --ask}): the child got it. A repeat counts as its first occurrence did.
 */
public final class DenialStatus {
    /** The exit status: distinct from a refusal before the child (125) and from what most tools exit with. */
    public static final int STATUS = 3;

    /** The codes of a refused access of the child's. */
    static final Set<Code> DENIALS = Set.of(Code.MGS2001, Code.MGS2002, Code.MGS2007, Code.MGS2013, Code.MGS2015);

    private static final String BENIGN = new DenialAdvice.Benign("").label();

    private DenialStatus() {
    }

    /** Whether {@code d} is a refusal that {@code --fail-on-denial} fails the run on. */
    public static boolean counts(Diagnostic d) {
        return DENIALS.contains(d.code()) && !BENIGN.equals(d.details().get(DetailKey.CLASS.key()))
                && !"true".equals(d.details().get(DetailKey.QUIET.key())) && !approved(d);
    }

    /** An access the policy refused and the run's approver let through ({@code --ask}): the child got it. */
    private static boolean approved(Diagnostic d) {
        String decision = d.details().get(DetailKey.DECISION.key());
        return decision != null && decision.startsWith("allow-");
    }

    /** The run's status: {@link #STATUS} instead of a clean exit when asked to and a denial counted. */
    public static int status(boolean failOnDenial, boolean denied, int status, int signal) {
        return failOnDenial && denied && status == 0 && signal == 0 ? STATUS : status;
    }
}
