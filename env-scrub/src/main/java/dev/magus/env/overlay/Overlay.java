package dev.magus.env.overlay;

import dev.magus.env.VariableNames;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One run's {@code env\set} and <code>env&#92;unset</code>, as a value. Every change returns a new
 * overlay, so a server running many runs at once shares nothing between them and never
 * touches its own environment: a run's children start from its overlay and nothing else.
 * A later change to a name wins over an earlier one.
 *
 * @param sets   names set by this run, with their values
 * @param unsets names removed by this run; disjoint from {@code sets}
 */
public record Overlay(SortedMap<String, String> sets, SortedSet<String> unsets) {
    public static final String SET_SOURCE = "env\\set";
    public static final String UNSET_SOURCE = "env\\unset";

    private static final Overlay EMPTY = new Overlay(new TreeMap<>(), new TreeSet<>());

    public Overlay {
        TreeMap<String, String> s = new TreeMap<>();
        sets.forEach((k, v) -> s.put(VariableNames.require(k, "overlay"), VariableNames.requireValue(k, v, "overlay")));
        TreeSet<String> u = new TreeSet<>();
        unsets.forEach(k -> u.add(VariableNames.require(k, "overlay")));
        for (String k : u) {
            if (s.containsKey(k)) {
                throw new IllegalArgumentException("overlay both sets and unsets " + k);
            }
        }
        sets = Collections.unmodifiableSortedMap(s);
        unsets = Collections.unmodifiableSortedSet(u);
    }

    public static Overlay empty() {
        return EMPTY;
    }

    public boolean isEmpty() {
        return sets.isEmpty() && unsets.isEmpty();
    }

    /** {@code env\set name value}. */
    public Overlay set(String name, String value) {
        return set(name, value, SET_SOURCE);
    }

    /**
     * Sets {@code name}; an invalid name or a value with NUL is MGS2004 naming {@code source}
     * (a magusfile position, {@code --env}).
     */
    public Overlay set(String name, String value, String source) {
        VariableNames.require(name, source);
        VariableNames.requireValue(name, value, source);
        TreeMap<String, String> s = new TreeMap<>(sets);
        s.put(name, value);
        TreeSet<String> u = new TreeSet<>(unsets);
        u.remove(name);
        return new Overlay(s, u);
    }

    /** <code>env&#92;unset name</code>. */
    public Overlay unset(String name) {
        return unset(name, UNSET_SOURCE);
    }

    public Overlay unset(String name, String source) {
        VariableNames.require(name, source);
        TreeMap<String, String> s = new TreeMap<>(sets);
        s.remove(name);
        TreeSet<String> u = new TreeSet<>(unsets);
        u.add(name);
        return new Overlay(s, u);
    }

    /** This overlay followed by {@code later}: where both touch a name, {@code later} wins. */
    public Overlay then(Overlay later) {
        TreeMap<String, String> s = new TreeMap<>(sets);
        TreeSet<String> u = new TreeSet<>(unsets);
        later.unsets.forEach(k -> {
            s.remove(k);
            u.add(k);
        });
        later.sets.forEach((k, v) -> {
            u.remove(k);
            s.put(k, v);
        });
        return new Overlay(s, u);
    }

    /** What this overlay says about {@code name}: set to a value, or empty when unset or untouched. */
    public Optional<String> valueOf(String name) {
        return Optional.ofNullable(sets.get(name));
    }

    public boolean touches(String name) {
        return sets.containsKey(name) || unsets.contains(name);
    }

    /** A new sorted map: {@code base} with this overlay laid over it; {@code base} is untouched. */
    public SortedMap<String, String> over(Map<String, String> base) {
        TreeMap<String, String> out = new TreeMap<>(base);
        unsets.forEach(out::remove);
        out.putAll(sets);
        return Collections.unmodifiableSortedMap(out);
    }
}
