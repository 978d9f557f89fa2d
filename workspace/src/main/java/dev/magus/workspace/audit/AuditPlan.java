package dev.magus.workspace.audit;

import dev.magus.policy.control.ControlFiles;
import dev.magus.workspace.audit.gitconfig.ConfigJudge;
import dev.magus.workspace.audit.gitconfig.GitConfigKeys;
import dev.magus.policy.git.GitConfigParser;
import dev.magus.workspace.audit.gitconfig.KeyChange;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What the audit does about each change a run made, from the two snapshots alone (pure;
 * {@link ControlFileAudit} carries it out).
 * <ul>
 *   <li>A repository the run created ({@code .git}, or a git dir beneath {@code .git/modules/},
 *       with a config and with neither config nor hooks before) is kept, its hooks other than
 *       {@code *.sample} taken out ({@link Step.Neutralise}), its config judged key by key.</li>
 *   <li>A {@code .git} file or link the run created is kept only when the git dir it names is
 *       inside the workspace: else it would point the next run's git elsewhere.</li>
 *   <li>A changed config is judged key by key ({@link ConfigJudge}): {@link Step.Accept},
 *       {@link Step.Revise}, or the whole file put back when either text is not git's.</li>
 *   <li>Everything else is put back as before the run ({@link Step.Restore}).</li>
 * </ul>
 */
public final class AuditPlan {
    private AuditPlan() {
    }

    /** One thing to do. */
    public sealed interface Step {
        Path path();

        /** Whether it fails the run. */
        boolean fails();

        /** Put back as the snapshot before the run had it (created: removed). */
        record Restore(Change change, String why) implements Step {
            public Restore {
                Objects.requireNonNull(change, "change");
                Objects.requireNonNull(why, "why");
            }

            @Override
            public Path path() {
                return change.path();
            }

            @Override
            public boolean fails() {
                return true;
            }
        }

        /** Left as the run made it; {@code note}, when not empty, says so in an info line naming the path. */
        record Accept(Change change, String note) implements Step {
            public Accept {
                Objects.requireNonNull(change, "change");
                Objects.requireNonNull(note, "note");
            }

            @Override
            public Path path() {
                return change.path();
            }

            @Override
            public boolean fails() {
                return false;
            }
        }

        /**
         * A config file given the text {@code text} (the run's, with the keys of
         * {@code reverted} put back), keeping its mode.
         */
        record Revise(Path path, String entry, String verb, String text, int permissions, List<KeyChange> reverted,
                List<KeyChange> kept) implements Step {
            public Revise {
                Objects.requireNonNull(path, "path");
                Objects.requireNonNull(text, "text");
                reverted = List.copyOf(reverted);
                kept = List.copyOf(kept);
            }

            @Override
            public boolean fails() {
                return true;
            }
        }

        /** A hook of a repository the run created: taken out, the repository kept. */
        record Neutralise(Path path, String entry, Node now) implements Step {
            public Neutralise {
                Objects.requireNonNull(path, "path");
                Objects.requireNonNull(entry, "entry");
                Objects.requireNonNull(now, "now");
            }

            @Override
            public boolean fails() {
                return false;
            }
        }
    }

    private static final Set<String> CONFIGS = Set.of(ControlFiles.GIT_CONFIG, ControlFiles.GIT_CONFIG_WORKTREE,
            ControlFiles.GIT_DIR_CONFIG, ControlFiles.GIT_DIR_CONFIG_WORKTREE);
    private static final Set<String> HOOKS = Set.of(ControlFiles.GIT_HOOKS, ControlFiles.GIT_DIR_HOOKS);

    /**
     * @param inside  whether an absolute, normalised path lies inside the workspace (its links
     *                resolved as far as it exists)
     * @param present whether something (a link included) is at an absolute path now
     * @param gitDir whether the audit's walks audit an absolute, normalised path as a git dir of
     *               another name (a bare repository, a {@code --separate-git-dir}: its listing
     *               holds {@link ControlFiles#GIT_DIR_MARKERS}), so that its hooks and config are
     *               control entries like those of {@code .git}
     */
    public static List<Step> of(List<Change> changes, Snapshot before, Snapshot after, Predicate<Path> inside,
            Predicate<Path> present, Predicate<Path> gitDir) {
        Set<Path> created = new LinkedHashSet<>();
        Set<Path> refused = new LinkedHashSet<>();
        for (Path g : newGitDirs(changes, before, after)) {
            // A commondir sends git to another directory's config and hooks, which no name here
            // covers: such a repository is not kept.
            (present.test(g.resolve("commondir")) ? refused : created).add(g);
        }
        List<Step> out = new ArrayList<>();
        for (Change c : changes) {
            Optional<Path> no = refused.stream().filter(g -> c.path().startsWith(g)).findFirst();
            if (no.isPresent()) {
                out.add(new Step.Restore(c, "the repository the run created at " + no.get()
                        + " has a commondir, which sends git to config and hooks elsewhere"));
                continue;
            }
            Optional<Path> in = created.stream().filter(g -> c.path().startsWith(g)).findFirst();
            if (in.isPresent()) {
                out.add(new Step.Accept(c, c.path().equals(in.get()) ? "kept the repository the run created" : ""));
                continue;
            }
            if (c instanceof Change.Created cr && cr.entry().equals(ControlFiles.GIT)) {
                out.add(gitLink(cr, inside, gitDir));
                continue;
            }
            if (CONFIGS.contains(c.entry())) {
                out.add(config(c, inside));
                continue;
            }
            out.add(new Step.Restore(c, ""));
        }
        // What a created repository holds, beneath its folded change: hooks out, configs judged.
        for (Path g : created) {
            for (Map.Entry<Path, Snapshot.Recorded> e : after.entries().tailMap(g).entrySet()) {
                Path p = e.getKey();
                if (!p.startsWith(g)) {
                    break;
                }
                Snapshot.Recorded r = e.getValue();
                if (HOOKS.contains(r.entry()) && !(r.node() instanceof Node.Directory)
                        && !p.getFileName().toString().endsWith(".sample")) {
                    out.add(new Step.Neutralise(p, r.entry(), r.node()));
                } else if (CONFIGS.contains(r.entry()) && r.node() instanceof Node.File f) {
                    Optional<Step> s = judged(p, r.entry(), "created", Optional.empty(), f, inside);
                    s.ifPresent(out::add);
                }
            }
        }
        return List.copyOf(out);
    }

    /**
     * The git dirs the run created: a created {@code .git} directory, and a directory of
     * {@code .git/modules/} whose config was created with nothing of its hooks or config there
     * before; either holding a config now.
     */
    static Set<Path> newGitDirs(List<Change> changes, Snapshot before, Snapshot after) {
        Set<Path> out = new LinkedHashSet<>();
        for (Change c : changes) {
            if (!(c instanceof Change.Created cr)) {
                continue;
            }
            Path g = null;
            if (cr.entry().equals(ControlFiles.GIT) && cr.now() instanceof Node.Directory) {
                g = cr.path();
            } else if (cr.entry().equals(ControlFiles.GIT_DIR_CONFIG) && cr.path().getFileName().toString().equals("config")) {
                g = cr.path().getParent();
            }
            if (g == null || !(after.entries().get(g.resolve("config")) != null
                    && after.entries().get(g.resolve("config")).node() instanceof Node.File)) {
                continue;
            }
            if (before.entries().containsKey(g.resolve("config")) || before.entries().containsKey(g.resolve("hooks"))) {
                continue;
            }
            Path found = g;
            if (out.stream().noneMatch(found::startsWith)) {
                out.add(g);
            }
        }
        return out;
    }

    /**
     * A {@code .git} file or link the run created: kept when what it names lies inside the
     * workspace and is a git dir the audit covers ({@link #audited}, or {@code gitDir}).
     */
    private static Step gitLink(Change.Created c, Predicate<Path> inside, Predicate<Path> gitDir) {
        Path dir = c.path().getParent();
        Optional<String> named = Optional.empty();
        if (c.now() instanceof Node.Link l) {
            named = Optional.of(l.target());
        } else if (c.now() instanceof Node.File f && f.content().bytes().isPresent()) {
            String text = new String(f.content().bytes().get(), StandardCharsets.UTF_8);
            String first = text.lines().findFirst().orElse("");
            if (first.startsWith("gitdir:")) {
                named = Optional.of(first.substring("gitdir:".length()).strip());
            }
        }
        if (named.isEmpty() || named.get().isEmpty()) {
            return new Step.Restore(c, "");
        }
        Path target;
        try {
            target = dir.resolve(named.get()).normalize();
        } catch (RuntimeException e) {
            return new Step.Restore(c, "");
        }
        if (!inside.test(target)) {
            return new Step.Restore(c, "it names a git dir outside the workspace, " + target);
        }
        if (!audited(target) && !gitDir.test(target)) {
            return new Step.Restore(c, "it names " + target + ", which is no .git directory nor one of its"
                    + " submodule or worktree git dirs nor a git dir of another name (HEAD, objects and refs in it),"
                    + " so its config and hooks would go unaudited");
        }
        return new Step.Accept(c, "");
    }

    /**
     * Whether the audit's names cover the git dir {@code target}: a {@code .git} directory, or
     * one beneath {@code .git/modules/} or {@code .git/worktrees/} (ignoring ASCII case, as
     * {@link ControlFiles} does).
     */
    static boolean audited(Path target) {
        int n = target.getNameCount();
        for (int i = 0; i < n; i++) {
            if (target.getName(i).toString().equalsIgnoreCase(".git")) {
                if (i == n - 1) {
                    return true;
                }
                String next = target.getName(i + 1).toString();
                return i + 2 < n && (next.equalsIgnoreCase("modules") || next.equalsIgnoreCase("worktrees"));
            }
        }
        return false;
    }

    private static Step config(Change c, Predicate<Path> inside) {
        if (c instanceof Change.Changed ch && ch.aspects().equals(Set.of(Change.Aspect.CONTENT))
                && ch.was() instanceof Node.File was && ch.now() instanceof Node.File now) {
            return judged(c.path(), c.entry(), "changed", Optional.of(was), now, inside)
                    .orElseGet(() -> new Step.Accept(c, ""));
        }
        if (c instanceof Change.Created cr && cr.now() instanceof Node.File now) {
            return judged(c.path(), c.entry(), "created", Optional.empty(), now, inside)
                    .orElseGet(() -> new Step.Accept(c, ""));
        }
        return new Step.Restore(c, "");
    }

    /**
     * The step for a config judged key by key: empty when every change is harmless (kept);
     * for one that cannot be judged, put back whole (a created one, removed).
     */
    private static Optional<Step> judged(Path path, String entry, String verb, Optional<Node.File> was, Node.File now,
            Predicate<Path> inside) {
        Path gitDir = path.getParent();
        GitConfigKeys.Context context = new GitConfigKeys.Context(v -> {
            try {
                return inside.test(gitDir.resolve(v).normalize());
            } catch (RuntimeException e) {
                return false;
            }
        });
        Optional<byte[]> nowBytes = now.content().bytes();
        Optional<byte[]> wasBytes = was.flatMap(w -> w.content().bytes());
        ConfigJudge.Outcome o;
        if (nowBytes.isEmpty() || (was.isPresent() && wasBytes.isEmpty())) {
            o = new ConfigJudge.Unreadable("it is too large to be read");
        } else {
            o = ConfigJudge.judge(wasBytes.map(GitConfigParser::text), GitConfigParser.text(nowBytes.get()), context);
        }
        if (o instanceof ConfigJudge.Judged j) {
            if (!j.reverts()) {
                return Optional.empty();
            }
            return Optional.of(new Step.Revise(path, entry, verb, j.text(), now.permissions(), j.reverted(), j.kept()));
        }
        String why = ((ConfigJudge.Unreadable) o).why();
        // Put back whole: the earlier file, or none.
        Change whole = was.<Change>map(w -> new Change.Changed(path, entry, w, now, Set.of(Change.Aspect.CONTENT), 0))
                .orElseGet(() -> new Change.Created(path, entry, now, 0));
        return Optional.of(new Step.Restore(whole, why));
    }
}
