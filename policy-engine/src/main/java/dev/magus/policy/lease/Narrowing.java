package dev.magus.policy.lease;

import dev.magus.events.DetailKey;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.Ruleset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** What a lease does to a run's write grant: nothing, a narrower grant, or a refusal (fail closed). */
public sealed interface Narrowing {

    /**
     * The grant stays as the layers built it: no lease, a root job, an ended job, a job without
     * write_paths.
     *
     * @param why one line for {@code magus policy}
     */
    record Unchanged(String why) implements Narrowing {
        public Unchanged {
            Objects.requireNonNull(why, "why");
        }
    }

    /**
     * The lease cannot be honored, so the run must not start: never the full grant instead.
     *
     * @param diagnostic an MGS2004 naming the job, the store or the rule in the way
     */
    record Refused(Diagnostic diagnostic) implements Narrowing {
        public Refused {
            Objects.requireNonNull(diagnostic, "diagnostic");
        }

        public SandboxException exception() {
            return new SandboxException(diagnostic);
        }
    }

    /**
     * The narrowed grant.
     *
     * @param job     the leased job
     * @param scope   the checkout, cache, temp and state dirs it was computed for
     * @param granted the rules the layers granted before the narrowing: a refusal is the lease's
     *                doing only where these would have allowed the write
     * @param ruleset the rules for the kernel: inside the checkout, write only on what the globs
     *                were given (see {@link GlobGrant}), plus the cache and private temp dirs
     * @param globs   per glob, what the kernel got and how exact it is
     */
    record Narrowed(LeaseJob job, LeaseScope scope, Ruleset granted, Ruleset ruleset, List<GlobGrant> globs)
            implements Narrowing {
        public Narrowed {
            Objects.requireNonNull(job, "job");
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(granted, "granted");
            Objects.requireNonNull(ruleset, "ruleset");
            globs = List.copyOf(globs);
        }

        /**
         * The binding layer's write check on a resolved path: inside the checkout (and outside the
         * cache and temp dirs) exactly what a glob covers; elsewhere the narrowed rules. A path
         * that is not absolute and normalized (a {@code ..} or {@code .} left in it) is refused:
         * it was not resolved, and its place in the checkout cannot be told.
         */
        public boolean permitsWrite(Path resolved) {
            if (!normalized(resolved)) {
                return false;
            }
            if (LeaseNarrowing.within(resolved, scope.cacheDir()) || LeaseNarrowing.within(resolved, scope.privateTemp())
                    || !LeaseNarrowing.within(resolved, scope.checkout())) {
                return ruleset.permits(resolved, Access.WRITE);
            }
            List<String> rel = LeaseNarrowing.components(scope.checkout().relativize(resolved));
            return job.writePaths().stream().anyMatch(g -> g.covers(rel));
        }

        private static boolean normalized(Path p) {
            if (!p.isAbsolute()) {
                return false;
            }
            for (Path c : p) {
                String s = c.toString();
                if (s.equals("..") || s.equals(".")) {
                    return false;
                }
            }
            return true;
        }

        /**
         * Whether a refused write at {@code resolved} is this lease's doing: it lies in the
         * checkout (outside the cache and temp dirs), where the layers' own rules would have
         * allowed it.
         */
        public boolean explains(Path resolved) {
            return normalized(resolved)
                    && LeaseNarrowing.within(resolved, scope.checkout())
                    && !LeaseNarrowing.within(resolved, scope.cacheDir())
                    && !LeaseNarrowing.within(resolved, scope.privateTemp())
                    && granted.permits(resolved, Access.WRITE);
        }

        /** Whether the binding layer refuses a write at {@code resolved} because of this lease. */
        public boolean refuses(Path resolved) {
            return explains(resolved) && !permitsWrite(resolved);
        }

        /** A binding-layer MGS2002 for a write the lease refuses, naming the job. */
        public Diagnostic denial(Path requested, Path resolved) {
            Map<String, String> details = new TreeMap<>(names());
            details.put(DetailKey.REQUESTED.key(), requested.toString());
            return new Diagnostic(Code.MGS2002, "write denied: " + resolved + " is outside the write_paths of job "
                    + job.id() + " (the lease on " + scope.checkout() + ")", resolved.toString(), Operation.WRITE,
                    Layer.BINDING, "binding", details);
        }

        /**
         * A refusal from either layer, with the job named when this lease caused it (see
         * {@link #explains}); one that names a job already is left as it is.
         */
        public Diagnostic attribute(Diagnostic d) {
            if (d.code() != Code.MGS2002 || d.details().containsKey(DetailKey.JOB.key()) || !d.subject().startsWith("/")) {
                return d;
            }
            Path subject;
            try {
                subject = Path.of(d.subject());
            } catch (java.nio.file.InvalidPathException e) {
                return d;
            }
            if (!explains(subject)) {
                return d;
            }
            return naming(d);
        }

        /** {@code d} with this lease's job, checkout and globs in its details. */
        public Diagnostic naming(Diagnostic d) {
            Diagnostic out = d;
            for (Map.Entry<String, String> e : names().entrySet()) {
                out = out.withDetail(e.getKey(), e.getValue());
            }
            return out;
        }

        private Map<String, String> names() {
            Map<String, String> m = new TreeMap<>();
            m.put("job", job.id());
            m.put("lease", scope.checkout().toString());
            m.put("write_paths", job.writePaths().stream().map(WriteGlob::text).collect(Collectors.joining(" ")));
            return m;
        }

        /**
         * The directories the kernel grants writes beneath beyond what the globs cover
         * ({@link Enforcement#WIDER}), outermost only: where only the binding layer refines, so
         * what a child wrote there is judged after the run.
         */
        public List<Path> widerDirs() {
            List<Path> all = new ArrayList<>();
            globs.stream().filter(g -> g.enforcement() == Enforcement.WIDER)
                    .forEach(g -> g.rules().forEach(r -> all.add(r.path())));
            List<Path> out = new ArrayList<>();
            for (Path p : all) {
                if (all.stream().noneMatch(q -> !q.equals(p) && LeaseNarrowing.within(p, q)) && !out.contains(p)) {
                    out.add(p);
                }
            }
            return List.copyOf(out);
        }
    }
}
