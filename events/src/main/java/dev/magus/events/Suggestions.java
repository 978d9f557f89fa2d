package dev.magus.events;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * What a mistyped command or option was most likely meant to be: the names within the
 * smallest edit distance (insertions, deletions, substitutions and swaps of two neighbours,
 * the optimal-string-alignment distance), at most 2, and at most a third of the word.
 * {@code magus rnu} means {@code run}, not {@code learn}; a {@code sandboxx:} section means {@code sandbox}.
 */
public final class Suggestions {
    private Suggestions() {
    }

    public static List<String> closest(String typed, Collection<String> names) {
        int limit = Math.min(2, Math.max(1, typed.length() / 3));
        int best = Integer.MAX_VALUE;
        List<String> out = new ArrayList<>();
        for (String name : names) {
            int d = distance(typed, name);
            if (d > limit || d > best) {
                continue;
            }
            if (d < best) {
                best = d;
                out.clear();
            }
            out.add(name);
        }
        return List.copyOf(out);
    }

    /** The optimal-string-alignment distance between {@code a} and {@code b}. */
    public static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
