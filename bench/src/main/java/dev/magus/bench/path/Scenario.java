package dev.magus.bench.path;

import java.util.Locale;

/**
 * One shape of request, spelled as a JMH parameter: {@code c6-l2-abs}, {@code c6-l2-rel-missing},
 * {@code c6-l2-abs-dotdot}, {@code c6-l2-abs-cwd}.
 *
 * <ul>
 *   <li>{@code cN}: the request has N components to resolve (before any {@code ..} inserted);</li>
 *   <li>{@code lK}: K symbolic links are met on the way (more links than components means
 *       chains: a link to a link);</li>
 *   <li>{@code abs} / {@code rel}: the links' targets are absolute or relative;</li>
 *   <li>{@code missing}: the last two components do not exist (a create);</li>
 *   <li>{@code dotdot}: right after the first link the request says {@code ../<name>}, which
 *       climbs out of the link's <em>target</em> and comes back to it;</li>
 *   <li>{@code cwd}: the request is relative, taken against a working directory two levels deep.</li>
 * </ul>
 */
public record Scenario(int components, int links, boolean absoluteTargets, Tail tail) {

    public enum Tail { NONE, MISSING, DOTDOT, CWD }

    public Scenario {
        if (components < 2 || links < 0) {
            throw new IllegalArgumentException("need at least two components and no negative links");
        }
        if (tail == Tail.DOTDOT && links == 0) {
            throw new IllegalArgumentException("dotdot needs a link to climb out of");
        }
    }

    public static Scenario parse(String text) {
        String[] parts = text.toLowerCase(Locale.ROOT).split("-");
        if (parts.length < 3 || !parts[0].startsWith("c") || !parts[1].startsWith("l")) {
            throw new IllegalArgumentException("scenario is cN-lK-abs|rel[-missing|-dotdot|-cwd]: " + text);
        }
        int c = Integer.parseInt(parts[0].substring(1));
        int l = Integer.parseInt(parts[1].substring(1));
        boolean abs = switch (parts[2]) {
            case "abs" -> true;
            case "rel" -> false;
            default -> throw new IllegalArgumentException("abs or rel, not " + parts[2]);
        };
        Tail tail = parts.length == 3 ? Tail.NONE : Tail.valueOf(parts[3].toUpperCase(Locale.ROOT));
        return new Scenario(c, l, abs, tail);
    }

    /** How many links sit at each component; spread evenly, chains where there are more links than components. */
    int[] linksPerComponent() {
        int[] count = new int[components];
        for (int j = 0; j < links; j++) {
            count[(int) ((long) j * components / links) % components]++;
        }
        return count;
    }
}
