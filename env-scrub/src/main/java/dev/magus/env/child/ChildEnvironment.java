package dev.magus.env.child;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A child's environment, as a value: nothing in this module prints; the caller streams the
 * diagnostics.
 *
 * @param variables    what the child receives, sorted by name
 * @param keptFromHost host variables that passed the scrub (all of them under mode off);
 *                     {@code keptFromHost + dropped} is the size of the host environment
 * @param dropped      host variables the scrub removed (0 under mode off); magus's own
 *                     variables are decided by later stages and never counted here
 * @param diagnostics  MGS2003, MGS2006 and MGS2008, in that order
 */
public record ChildEnvironment(SortedMap<String, String> variables, int keptFromHost, int dropped,
                               List<Diagnostic> diagnostics) {
    public ChildEnvironment {
        variables = Collections.unmodifiableSortedMap(new TreeMap<>(variables));
        diagnostics = List.copyOf(diagnostics);
        if (keptFromHost < 0 || dropped < 0) {
            throw new IllegalArgumentException("negative count");
        }
    }

    public Optional<String> get(String name) {
        return Optional.ofNullable(variables.get(name));
    }

    /** {@code NAME=value} strings in name order, as {@code execve} and {@code posix_spawn} take them. */
    public List<String> envp() {
        List<String> out = new ArrayList<>(variables.size());
        variables.forEach((k, v) -> out.add(k + "=" + v));
        return List.copyOf(out);
    }

    public List<Diagnostic> diagnostics(Code code) {
        return diagnostics.stream().filter(d -> d.code() == code).toList();
    }
}
