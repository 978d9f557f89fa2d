package dev.magus.policy.lease;

import dev.magus.events.DetailKey;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.fs.Ruleset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The specification's "A lease narrows it further", as a pure function of the rules the layers
 * built, the leased job and the checkout's files.
 *
 * <h2>When</h2>
 * A live job with a parent and at least one write path. Anything else ({@link Narrowing.Unchanged}):
 * a root job, an ended one, one without write_paths; a checkout without a lease, an unknown job
 * and a workspace without a job store never reach here (the lookup answers them).
 *
 * <h2>What</h2>
 * <ul>
 *   <li>every rule at or beneath the checkout loses its write bit (read and exec stay), except
 *       rules inside the cache dir or the private temp dir;</li>
 *   <li>each write glob adds rw rules for the kernel, as below;</li>
 *   <li>the cache dir (rw) and the private temp dir (rwx) are granted;</li>
 *   <li>rules outside the checkout keep their writes.</li>
 * </ul>
 * Refused instead ({@link Narrowing.Refused}, MGS2004), never widened: a write rule on a strict
 * ancestor of the checkout (Landlock grants add up, so nothing beneath it could be taken back),
 * and any write rule that reaches the state dir (a run could rewrite its own lease).
 *
 * <h2>What the kernel gets for each glob form</h2>
 * Landlock grants directory subtrees and files that exist; creating a file needs a right on its
 * directory. The <em>creation dir</em> of a glob is the deepest existing directory along its
 * fixed prefix (the components before the first wildcard; for a literal glob, its parent),
 * not walking through a symbolic link.
 * <table>
 *   <caption>kernel rules per glob</caption>
 *   <tr><th>glob</th><th>kernel rule</th><th>enforcement</th></tr>
 *   <tr><td>{@code src/**}, {@code src} (an existing directory)</td><td>rw on {@code src/}</td><td>exact</td></tr>
 *   <tr><td>{@code **}</td><td>rw on the checkout</td><td>exact</td></tr>
 *   <tr><td>{@code docs/*.md}, {@code src/**}{@code /*.java}, {@code a/new.txt} (missing, {@code a/} present),
 *       {@code src/**} with {@code src/} missing but a deeper-than-root ancestor present</td>
 *       <td>rw on the creation dir</td><td>wider: binding refines</td></tr>
 *   <tr><td>{@code a/b.txt} (an existing file)</td><td>write and truncate on the file only</td>
 *       <td>narrower: no unlink, no rename over it</td></tr>
 *   <tr><td>{@code *.md}, {@code **}{@code /*.java} (no fixed prefix)</td>
 *       <td>each existing match (a directory as a subtree, a file as a file)</td>
 *       <td>narrower: new matches cannot be created by children</td></tr>
 *   <tr><td>{@code new.txt}, {@code gen/x} with {@code gen/} missing (creation dir = the root)</td>
 *       <td>nothing</td><td>narrower</td></tr>
 * </table>
 * A creation dir that is the checkout root is never granted: that would be the whole grant
 * again. A match that is a symbolic link is never granted. The walk for existing matches is
 * bounded ({@link #MAX_VISITED} entries, {@link #MAX_RULES} rules); past it the kernel grants
 * less, never more. The binding layer ({@link Narrowing.Narrowed#permitsWrite}) checks every
 * glob exactly.
 */
public final class LeaseNarrowing {
    /** Entries a glob without a fixed prefix may visit looking for existing matches. */
    static final int MAX_VISITED = 20_000;
    /** Kernel rules one glob may add. */
    static final int MAX_RULES = 1_024;

    private LeaseNarrowing() {
    }

    /**
     * The narrowed grant of a run under {@code job}'s lease.
     *
     * @param rules the rules every layer granted (resolved, as in a {@code Policy})
     * @param job   the job the checkout's lease resolves to
     * @param scope the checkout and the dirs that stay writable, resolved
     * @param tree  the checkout's files (never followed through a link)
     */
    public static Narrowing plan(Ruleset rules, LeaseJob job, LeaseScope scope, Tree tree) {
        Objects.requireNonNull(rules, "rules");
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(tree, "tree");
        if (!job.live()) {
            return new Narrowing.Unchanged("job " + job.id() + " has ended");
        }
        if (!job.hasParent()) {
            return new Narrowing.Unchanged("job " + job.id() + " is a root job");
        }
        if (job.writePaths().isEmpty()) {
            return new Narrowing.Unchanged("job " + job.id() + " has no write_paths");
        }
        Path checkout = scope.checkout();
        List<Rule> out = new ArrayList<>();
        for (Rule r : rules.rules()) {
            boolean keepsWrite = within(r.path(), scope.cacheDir()) || within(r.path(), scope.privateTemp());
            if (within(r.path(), checkout) && !keepsWrite) {
                AccessMode rest = new AccessMode(r.mode().bits() & ~Access.WRITE.bit());
                if (!rest.isEmpty()) {
                    out.add(new Rule(r.path(), rest, r.origin()));
                }
            } else if (r.mode().has(Access.WRITE) && within(checkout, r.path())) {
                return refuse(job, r.path().toString(), "the write grant on " + r.path() + " (" + r.origin()
                        + ") contains the checkout " + checkout + "; Landlock grants add up, so nothing beneath it can be"
                        + " taken back and job " + job.id() + "'s lease cannot be enforced");
            } else {
                out.add(r);
            }
        }
        List<GlobGrant> globs = new ArrayList<>();
        for (WriteGlob g : job.writePaths()) {
            GlobGrant grant = withinGrant(grant(g, job.id(), checkout, tree), rules);
            globs.add(grant);
            out.addAll(grant.rules());
        }
        out.add(new Rule(scope.cacheDir(), AccessMode.RW, "lease:cache"));
        out.add(new Rule(scope.privateTemp(), AccessMode.RWX, "lease:temp"));
        for (Rule r : out) {
            if (r.mode().has(Access.WRITE) && (within(r.path(), scope.stateDir()) || within(scope.stateDir(), r.path()))) {
                return refuse(job, scope.stateDir().toString(), "the write grant on " + r.path() + " (" + r.origin()
                        + ") reaches magus's state dir " + scope.stateDir() + ", where the lease and the job store live;"
                        + " a run could rewrite its own lease");
            }
        }
        return new Narrowing.Narrowed(job, scope, rules, Ruleset.of(out), globs);
    }

    private static Narrowing refuse(LeaseJob job, String subject, String why) {
        return new Narrowing.Refused(Diagnostic.of(Code.MGS2004, "lease cannot be honored: " + why, subject,
                Operation.WRITE, Layer.POLICY, "lease:job " + job.id()).withDetail(DetailKey.JOB, job.id()));
    }

    /** The kernel rules for one glob; see the table in the class documentation. */
    static GlobGrant grant(WriteGlob glob, String jobId, Path checkout, Tree tree) {
        String origin = "lease:job " + jobId + " " + glob.text();
        if (glob.literal()) {
            Path target = resolve(checkout, glob.segments());
            Tree.Kind kind = realKind(checkout, glob.segments(), tree);
            if (kind == Tree.Kind.DIRECTORY) {
                return new GlobGrant(glob, Enforcement.EXACT, List.of(new Rule(target, AccessMode.RW, origin)),
                        "the directory and everything beneath it");
            }
            if (kind == Tree.Kind.FILE) {
                return new GlobGrant(glob, Enforcement.NARROWER, List.of(new Rule(target, AccessMode.RW, origin)),
                        "the file in place: children cannot remove it or rename over it");
            }
            if (kind == Tree.Kind.OTHER) {
                return new GlobGrant(glob, Enforcement.NARROWER, List.of(),
                        "a symbolic link or special file: the kernel grants nothing there");
            }
            return creation(glob, glob.segments().subList(0, glob.segments().size() - 1), checkout, tree, origin);
        }
        List<String> prefix = glob.fixedPrefix();
        if (prefix.isEmpty()) {
            if (glob.coversPrefixSubtree()) {
                return new GlobGrant(glob, Enforcement.EXACT, List.of(new Rule(checkout, AccessMode.RW, origin)),
                        "the whole checkout");
            }
            return existing(glob, checkout, tree, origin);
        }
        int depth = existingDepth(checkout, prefix, tree);
        if (depth == prefix.size() && glob.coversPrefixSubtree()) {
            return new GlobGrant(glob, Enforcement.EXACT,
                    List.of(new Rule(resolve(checkout, prefix), AccessMode.RW, origin)), "the directory and everything beneath it");
        }
        return creation(glob, prefix, checkout, tree, origin);
    }

    /**
     * A glob's kernel rules cut down to where the layers granted writing: a lease narrows, so a
     * glob never writes where the run could not before (a workspace nested in the leased
     * checkout keeps its own bounds; so does a nested magus carrying its parent's lease).
     */
    static GlobGrant withinGrant(GlobGrant grant, Ruleset granted) {
        List<Rule> kept = new ArrayList<>();
        boolean cut = false;
        for (Rule r : grant.rules()) {
            if (granted.permits(r.path(), Access.WRITE)) {
                kept.add(r);
                continue;
            }
            cut = true;
            for (Rule g : granted.rules()) {
                if (g.mode().has(Access.WRITE) && !g.path().equals(r.path()) && within(g.path(), r.path())) {
                    kept.add(new Rule(g.path(), AccessMode.RW, r.origin()));
                }
            }
        }
        if (!cut) {
            return grant;
        }
        Enforcement e = grant.enforcement() == Enforcement.EXACT ? Enforcement.NARROWER : grant.enforcement();
        return new GlobGrant(grant.glob(), e, kept, grant.why() + "; cut to what the layers grant ("
                + (kept.isEmpty() ? "nothing" : kept.size() + " rule(s)") + ")");
    }

    /** Rw on the deepest existing directory along {@code dirs}, unless that is the checkout root. */
    private static GlobGrant creation(WriteGlob glob, List<String> dirs, Path checkout, Tree tree, String origin) {
        int depth = existingDepth(checkout, dirs, tree);
        if (depth == 0) {
            return new GlobGrant(glob, Enforcement.NARROWER, List.of(),
                    "nothing: the directory a new file needs would be the checkout root (or is missing)");
        }
        Path dir = resolve(checkout, dirs.subList(0, depth));
        return new GlobGrant(glob, Enforcement.WIDER, List.of(new Rule(dir, AccessMode.RW, origin)),
                "all of " + checkout.relativize(dir) + "/ (binding checks refine within it; what a run writes there outside the glob is put back"
                + " after it)");
    }

    /** Each existing match under the checkout, for a glob without a fixed prefix. */
    private static GlobGrant existing(WriteGlob glob, Path checkout, Tree tree, String origin) {
        List<Rule> rules = new ArrayList<>();
        int[] visited = {0};
        boolean complete = walk(glob, checkout, new ArrayList<>(), tree, origin, rules, visited);
        String why = rules.isEmpty() ? "nothing matches yet" : rules.size() + " existing match(es)";
        if (!complete) {
            why += " (the search stopped at its bound: the kernel grants only these)";
        }
        return new GlobGrant(glob, Enforcement.NARROWER, rules, why + "; children cannot create new matches");
    }

    private static boolean walk(WriteGlob glob, Path dir, List<String> rel, Tree tree, String origin, List<Rule> rules,
                                int[] visited) {
        for (String name : tree.list(dir)) {
            if (++visited[0] > MAX_VISITED || rules.size() >= MAX_RULES) {
                return false;
            }
            rel.add(name);
            Path p = dir.resolve(name);
            Tree.Kind kind = tree.kind(p);
            WriteGlob.Progress progress = glob.walk(rel);
            boolean complete = true;
            if (progress.covered() && (kind == Tree.Kind.DIRECTORY || kind == Tree.Kind.FILE)) {
                rules.add(new Rule(p, AccessMode.RW, origin));
            } else if (progress.below() && kind == Tree.Kind.DIRECTORY) {
                complete = walk(glob, p, rel, tree, origin, rules, visited);
            }
            rel.remove(rel.size() - 1);
            if (!complete) {
                return false;
            }
        }
        return true;
    }

    /** How many leading components of {@code dirs} exist as real directories (no link followed). */
    private static int existingDepth(Path checkout, List<String> dirs, Tree tree) {
        Path p = checkout;
        int i = 0;
        for (String d : dirs) {
            p = p.resolve(d);
            if (tree.kind(p) != Tree.Kind.DIRECTORY) {
                break;
            }
            i++;
        }
        return i;
    }

    /** The kind of the path the components name, MISSING or OTHER when a directory on the way is not a real one. */
    private static Tree.Kind realKind(Path checkout, List<String> segments, Tree tree) {
        int parents = segments.size() - 1;
        if (existingDepth(checkout, segments.subList(0, parents), tree) < parents) {
            return Tree.Kind.MISSING;
        }
        return tree.kind(resolve(checkout, segments));
    }

    static Path resolve(Path root, List<String> segments) {
        Path p = root;
        for (String s : segments) {
            p = p.resolve(s);
        }
        return p;
    }

    /** Whether {@code path} is {@code dir} or beneath it (component-wise, both normalized). */
    static boolean within(Path path, Path dir) {
        return path.normalize().startsWith(dir.normalize());
    }

    static List<String> components(Path relative) {
        List<String> out = new ArrayList<>();
        for (Path c : relative) {
            if (!c.toString().isEmpty()) {
                out.add(c.toString());
            }
        }
        return out;
    }
}
