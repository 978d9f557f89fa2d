package dev.magus.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.magus.policy.Locations;
import dev.magus.policy.Policy;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.lease.GlobGrant;
import dev.magus.policy.lease.Narrowing;
import dev.magus.policy.lease.WriteGlob;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The leases in {@code magus policy}: which job narrowed the run, by which globs, what the kernel
 * got for each glob, and which of the layers' write rules the narrowing took the write bit from.
 */
final class LeaseView {
    private LeaseView() {
    }

    /** A rule the lease narrowed: as the layers granted it, and what is left (empty: nothing). */
    record NarrowedRule(Rule before, Optional<Rule> after) {
    }

    static List<NarrowedRule> narrowed(Narrowing.Narrowed n) {
        List<NarrowedRule> out = new ArrayList<>();
        for (Rule r : n.granted().rules()) {
            if (!r.mode().has(Access.WRITE) || !r.path().startsWith(n.scope().checkout())
                    || r.path().startsWith(n.scope().cacheDir()) || r.path().startsWith(n.scope().privateTemp())) {
                continue;
            }
            Optional<Rule> after = n.ruleset().rules().stream().filter(x -> x.path().equals(r.path())).findFirst();
            if (after.isEmpty() || !after.get().mode().has(Access.WRITE)) {
                out.add(new NarrowedRule(r, after));
            }
        }
        return out;
    }

    private static String globs(Narrowing.Narrowed n) {
        return n.job().writePaths().stream().map(WriteGlob::text).collect(Collectors.joining(" "));
    }

    private static String from(Narrowing.Narrowed n) {
        return n.job().store().map(s -> "the lease on the checkout (" + s + ")")
                .orElse("carried from the parent run (MAGUS_LEASE)");
    }

    static List<String> text(Policy p, Path home) {
        List<String> lines = new ArrayList<>();
        lines.add("");
        if (p.leases().isEmpty()) {
            lines.add("lease: none (no live delegated job holds a lease on this checkout; writes are as the rules say)");
            return lines;
        }
        for (Narrowing.Narrowed n : p.leases()) {
            lines.add("lease: job " + n.job().id() + " on " + Locations.display(n.scope().checkout(), home) + ", " + from(n));
            List<List<String>> head = new ArrayList<>();
            head.add(List.of("write paths", globs(n) + " (inside the checkout only these, plus the cache and temp dirs)"));
            lines.addAll(Tables.align(head, "  "));
            List<List<String>> globs = new ArrayList<>();
            globs.add(List.of("GLOB", "KERNEL", "GETS"));
            for (GlobGrant g : n.globs()) {
                String rules = g.rules().isEmpty() ? "nothing"
                        : g.rules().stream().map(r -> Locations.display(r.path(), home)).collect(Collectors.joining(" "));
                globs.add(List.of(g.glob().text(), g.enforcement().name().toLowerCase(java.util.Locale.ROOT), rules + ": " + g.why()));
            }
            lines.addAll(Tables.align(globs, "  "));
            List<NarrowedRule> narrowed = narrowed(n);
            if (!narrowed.isEmpty()) {
                lines.add("  narrowed (the layers granted these; the lease took their write bit)");
                List<List<String>> rows = new ArrayList<>();
                for (NarrowedRule r : narrowed) {
                    rows.add(List.of("  " + Locations.display(r.before().path(), home), r.before().mode().letters() + " -> "
                            + r.after().map(a -> a.mode().letters()).orElse("---"), r.before().origin()));
                }
                lines.addAll(Tables.align(rows, "  "));
            }
        }
        return lines;
    }

    static void json(ObjectNode root, Policy p) {
        ArrayNode leases = root.putArray("leases");
        for (Narrowing.Narrowed n : p.leases()) {
            ObjectNode l = leases.addObject();
            l.put("job", n.job().id());
            l.put("checkout", n.scope().checkout().toString());
            l.put("carried", n.job().store().isEmpty());
            ArrayNode paths = l.putArray("write_paths");
            n.job().writePaths().forEach(g -> paths.add(g.text()));
            ArrayNode globs = l.putArray("globs");
            for (GlobGrant g : n.globs()) {
                ObjectNode o = globs.addObject();
                o.put("glob", g.glob().text());
                o.put("kernel", g.enforcement().name().toLowerCase(java.util.Locale.ROOT));
                g.rules().forEach(r -> o.withArray("rules").add(r.path().toString()));
                if (g.rules().isEmpty()) {
                    o.putArray("rules");
                }
                o.put("why", g.why());
            }
            ArrayNode narrowed = l.putArray("narrowed");
            for (NarrowedRule r : narrowed(n)) {
                ObjectNode o = narrowed.addObject();
                o.put("path", r.before().path().toString());
                o.put("origin", r.before().origin());
                o.put("bits_before", r.before().mode().letters());
                o.put("bits_after", r.after().map(a -> a.mode().letters()).orElse("---"));
            }
        }
    }
}
