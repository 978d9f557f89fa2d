package dev.magus.workspace.lease;

import dev.magus.policy.lease.Narrowing;
import java.util.List;

/**
 * Every lease that holds for one run, as {@link LeaseLookup#leasing} found them.
 *
 * @param applied the narrowings, in the order applied (a carried lease first, then the
 *                checkout's own); empty when nothing narrows the run
 * @param notes   why each lease that was looked at changes nothing (no marker, a root job, ...),
 *                for {@code magus policy}
 */
public record Leasing(List<Narrowing.Narrowed> applied, List<String> notes) {
    public Leasing {
        applied = List.copyOf(applied);
        notes = List.copyOf(notes);
    }
}
