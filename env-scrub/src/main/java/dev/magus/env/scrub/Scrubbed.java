package dev.magus.env.scrub;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The host environment after the filter.
 *
 * @param kept    the surviving host variables, sorted by name
 * @param dropped how many host variables the filter removed
 */
public record Scrubbed(SortedMap<String, String> kept, int dropped) {
    public Scrubbed {
        kept = Collections.unmodifiableSortedMap(new TreeMap<>(kept));
        if (dropped < 0) {
            throw new IllegalArgumentException("dropped < 0");
        }
    }
}
