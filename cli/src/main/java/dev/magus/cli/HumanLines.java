package dev.magus.cli;

import dev.magus.events.DetailKey;
import dev.magus.landlock.denials.stream.KernelDenialStream;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Severity;
import dev.magus.policy.DenialAdvice;
import java.util.List;
import java.util.Set;

/**
 * How a diagnostic reads on a person's terminal: one line, the code first, where to read more last.
 *
 * <p>A refusal (the codes that stop a run before its child starts) also says where the refused
 * value came from, right after the code, as a compiler names a file and line
 * ({@code magus: MGS2004 magus.yaml:4:25 ...}, {@code --sandbox: ...}, {@code MAGUS_SANDBOX: ...}).
 *
 * <p>Control characters in the message or the source (a hostile file name) are shown as escapes,
 * never sent to the terminal, and a message is cut after {@value #MAX_MESSAGE} characters.
 */
final class HumanLines {
    /** The codes of a refusal before the child starts (exit status 125). */
    static final Set<Code> REFUSALS = Set.of(Code.MGS2004, Code.MGS2010, Code.MGS2011, Code.MGS2012);
    static final int MAX_MESSAGE = 1000;

    private HumanLines() {
    }

    /**
     * {@link #line(Diagnostic)}, and at {@code -v} also the names of the variables an MGS2003
     * dropped (names only: the diagnostic never carries a value).
     */
    static String line(Diagnostic d, boolean verbose) {
        List<String> names = d.names(DetailKey.DROPPED_NAMES);
        if (!verbose || d.code() != Code.MGS2003 || names.isEmpty()) {
            return line(d);
        }
        return line(d) + "\nmagus:   dropped: " + Echo.visible(String.join(", ", names));
    }


    static String line(Diagnostic d) {
        String layer = d.layer() == Layer.KERNEL || d.layer() == Layer.AUDIT || d.layer() == Layer.PROXY ? " [" + d.layer().label() + "]" : "";
        String source = REFUSALS.contains(d.code()) && !d.source().isEmpty() ? Echo.visible(d.source()) + ": " : "";
        String message = Echo.visible(approved(d));
        if (message.length() > MAX_MESSAGE) {
            message = message.substring(0, Character.isHighSurrogate(message.charAt(MAX_MESSAGE - 1)) ? MAX_MESSAGE - 1 : MAX_MESSAGE)
                    + "…";
        }
        return "magus: " + d.code().name() + " " + source + message + layer + "; see 'magus explain " + d.code().name() + "'";
    }

    /**
     * The message of a refusal the run's approver let through ({@code --ask}: its {@code decision}
     * detail is {@code allow-once} or {@code allow-for-run}) says it was approved, once or for the
     * run, where the refusal says denied: the child got that access. A denied, timed-out or
     * unapprovable one stays the denial it is.
     */
    static String approved(Diagnostic d) {
        String decision = d.details().get(DetailKey.DECISION.key());
        String how = "allow-once".equals(decision) ? "approved once" : "allow-for-run".equals(decision)
                ? "approved for this run" : null;
        if (how == null) {
            return d.message();
        }
        String m = d.message();
        // The approver's own note: the decision alone is said by the new wording; anything after it (magus's own open failing) stays.
        m = m.replace(" (asked: " + decision + ")", "").replace(" (asked: " + decision + "; ", " (");
        int denied = m.indexOf(" denied");
        return denied >= 0 ? m.substring(0, denied) + " " + how + m.substring(denied + " denied".length()) : how + ": " + m;
    }

    /**
     * Debug diagnostics (MGS2008), known harmless runtime probes (a denial the policy classed
     * {@code benign}, such as every JVM's {@code /proc/self/coredump_filter}) and diagnostics with
     * nothing new to say ({@link DetailKey#QUIET}: an MGS2003 seen last run) only show when asked
     * for; repeats of a denial already shown never do. All are still events, counted and
     * logged, never dropped.
     */
    static boolean shown(Diagnostic d, boolean verbose) {
        return shown(d, verbose, false);
    }

    /**
     * {@link #shown(Diagnostic, boolean)}, and with {@code quiet} (and not {@code verbose}) only
     * refusals and denials: the diagnostics of severity error. A notice, a warning or a hint is
     * still an event, in {@code --events} and {@code --log}.
     */
    static boolean shown(Diagnostic d, boolean verbose, boolean quiet) {
        if (quiet && !verbose && d.severity() != Severity.ERROR) {
            return false;
        }
        if (d.details().containsKey(DetailKey.REPEAT.key())) {
            // One more occurrence of a denial already shown: an event, counted, not a new line.
            return false;
        }
        return verbose || d.severity() != Severity.DEBUG && !BENIGN.equals(d.details().get(DetailKey.CLASS.key()))
                && !"true".equals(d.details().get(DetailKey.QUIET.key()));
    }

    private static final String BENIGN = new DenialAdvice.Benign("").label();
}
