package dev.magus.orchestrator.orphans;

import dev.magus.events.DetailKey;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What {@link Strays#collect} did at the end of a run: how many strays it killed, and which
 * processes that may be the run's outlived the collection: still alive when its time was up
 * (a fork loop outrunning it, an uninterruptible sleep), or left alone because another run
 * still running may own them. A survivor keeps the run's Landlock grant and can write a
 * control file after the audit has passed, so a run with survivors fails ({@link #diagnostic}).
 *
 * @param survivors their pids; a negative one is the run's process group, still not empty
 */
public record Collected(int killed, List<Long> survivors) {
    public Collected {
        survivors = List.copyOf(survivors);
    }

    /** Both ends of one run: the kills added, the survivors of either. */
    public Collected and(Collected other) {
        List<Long> all = new java.util.ArrayList<>(survivors);
        all.addAll(other.survivors);
        return new Collected(killed + other.killed, all);
    }

    /** Whether every process of the run is gone. */
    public boolean clean() {
        return survivors.isEmpty();
    }

    /**
     * The MGS2002 (layer audit, change unaudited) that fails a run something of which
     * outlived it; names the pids.
     */
    public Diagnostic diagnostic(String runId) {
        String pids = survivors.stream().map(p -> p < 0 ? "group " + -p : Long.toString(p))
                .collect(Collectors.joining(", "));
        String message = "processes of the run outlived it (" + pids + "): started by the run and out of its process"
                + " group, they could not be killed before the control-file audit, or may belong to another run still"
                + " running and were left to it; they keep the run's grant and can change a control file after the audit,"
                + " so what they write is unaudited and the run fails";
        return new Diagnostic(Code.MGS2002, message, runId, Operation.WRITE, Layer.AUDIT, "audit", Map.of())
                .withDetail(DetailKey.CHANGE, "unaudited").withDetail(DetailKey.RESTORED, "false").withDetail(DetailKey.PIDS, pids);
    }
}
