package dev.magus.workspace.audit;

import dev.magus.events.DetailKey;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.path.DirectoryReader;
import dev.magus.policy.watch.ChangeWatcher;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.quarantine.Kept;
import dev.magus.workspace.quarantine.Quarantine;
import dev.magus.workspace.quarantine.Retention;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The control-file audit of one run: {@link #before} records the workspace's control entries
 * before the child starts; {@link Baseline#after}, once the run's process group is gone,
 * compares, restores (unless {@link ControlFilesAction#REPORT}) and says what it found as
 * MGS2002 diagnostics with layer {@link Layer#AUDIT}.
 *
 * <p>What is audited is {@link ControlFiles}: the specification's list at any depth of the
 * workspace, {@code magus.yaml} among them (a planted {@code sub/magus.yaml} would make a
 * workspace of its own), and the git dirs of the workspace that lie outside it.
 */
public final class ControlFileAudit {

    private final ControlFiles files;
    private final ControlNames names;
    private final DirectoryReader reader;
    private final List<Path> roots;
    private final Set<Path> gitRoots;
    private final String key;
    /** The walks kept from run to run by this audit's owner. */
    private final AuditCaches caches;
    private final Optional<WalkCache> cache;
    /** The kernel's events of what a run changed ({@link Watchers#installed()} unless given). */
    private final java.util.function.Supplier<Optional<ChangeWatcher>> watcher;
    /** Where what the audit takes is kept first, and for how long; empty: nowhere (tests, benchmarks). */
    private final Optional<Quarantine> quarantine;
    private final Retention retention;

    private ControlFileAudit(ControlFiles files, DirectoryReader reader, AuditCaches caches, Optional<WalkCache> cache,
            java.util.function.Supplier<Optional<ChangeWatcher>> watcher, Optional<Quarantine> quarantine,
            Retention retention) {
        this.caches = caches;
        this.quarantine = quarantine;
        this.retention = retention;
        this.files = files;
        this.names = new ControlNames(files);
        this.reader = reader;
        List<Path> r = new ArrayList<>(List.of(files.workspaceRoot()));
        Set<Path> git = new LinkedHashSet<>();
        for (Path g : files.gitDirs()) {
            // A git dir inside the workspace (or inside another git dir) is walked with it.
            if (r.stream().noneMatch(g::startsWith) && git.stream().noneMatch(g::startsWith)) {
                git.add(g);
            }
        }
        r.addAll(git);
        this.roots = List.copyOf(r);
        this.gitRoots = Set.copyOf(git);
        List<Path> named = new ArrayList<>();
        files.hooksDir().ifPresent(named::add);
        named.addAll(files.included());
        this.key = WalkCache.key(roots, named);
        this.cache = cache;
        this.watcher = watcher;
    }

    /**
     * An audit of {@code files}' workspace with the installed directory reader, starting from
     * the walks {@code caches} kept and keeping its own there.
     */
    public static ControlFileAudit of(ControlFiles files, AuditCaches caches) {
        return of(files, Readers.installed(), caches);
    }

    public static ControlFileAudit of(ControlFiles files, DirectoryReader reader, AuditCaches caches) {
        return new ControlFileAudit(Objects.requireNonNull(files, "files"), Objects.requireNonNull(reader, "reader"),
                Objects.requireNonNull(caches, "caches"), Optional.empty(), Watchers::installed, Optional.empty(),
                Retention.DEFAULT);
    }

    /** This audit, starting from the walks {@code caches} kept and keeping its own there (a fresh one: a new process). */
    public ControlFileAudit withCaches(AuditCaches caches) {
        return new ControlFileAudit(files, reader, Objects.requireNonNull(caches, "caches"), cache, watcher, quarantine,
                retention);
    }

    /**
     * This audit, also keeping the last walk of its workspace in {@code state}'s {@code audit}
     * directory, so that the next process's run rescans instead of walking everything
     * ({@link WalkCache} says why that is safe).
     */
    public ControlFileAudit keepingWalksIn(StateDir state) {
        return new ControlFileAudit(files, reader, caches, Optional.of(new WalkCache(state.dir().resolve("audit"))), watcher,
                quarantine, retention);
    }

    /**
     * This audit, keeping everything it removes or puts back in {@code state}'s quarantine
     * first ({@link Quarantine}), pruned to {@code retention} after each run that adds to it.
     */
    public ControlFileAudit quarantiningIn(StateDir state, Retention retention) {
        return new ControlFileAudit(files, reader, caches, cache, watcher, Optional.of(Quarantine.in(state)), retention);
    }

    /**
     * This audit, learning what a run changed from {@code watcher} (empty: from stamping every
     * directory) instead of the installed one: for tests and benchmarks.
     */
    public ControlFileAudit watchingWith(Optional<ChangeWatcher> watcher) {
        return new ControlFileAudit(files, reader, caches, cache, () -> watcher, quarantine, retention);
    }

    /** Records the control entries now: call before the child starts. */
    public Baseline before() {
        // First: every change from here on is an event, the walk's own start included.
        EventPass events = EventPass.start(watcher.get(), roots);
        Optional<Scan.Previous> previous = Optional.ofNullable(caches.walks.get(key));
        boolean fromFile = false;
        if (previous.isEmpty() && cache.isPresent()) {
            previous = cache.get().load(key, roots, Scan.nowNanos());
            fromFile = previous.isPresent();
        }
        // The state dir's file holds this very walk when this process loaded or wrote it (or
        // found it still holding) and nothing replaced the walk in memory since (AuditCaches#filed).
        boolean filed = fromFile || previous.isPresent() && cache.isPresent() && caches.filed.get(filedKey()) == previous.get();
        Set<Path> carried = new java.util.TreeSet<>(caches.unaudited.getOrDefault(key, Set.of()));
        cache.ifPresent(c -> carried.addAll(c.loadUnaudited(key, roots)));
        Scan.Walk walk = new Scan(names, reader).before(roots, gitRoots, previous);
        caches.walks.put(key, walk.previous());
        return new Baseline(walk, filed, carried, events);
    }

    /** {@link AuditCaches#filed}'s key: the workspace's walk in this audit's state dir. */
    private String filedKey() {
        return cache.map(c -> c.dir().toString()).orElse("") + '\0' + key;
    }

    /** What one run's audit found, and the diagnostics that say so. */
    /**
     * @param changes     every control entry the run created, changed or removed
     * @param notes       info lines: what was kept or neutralised without failing the run, what
     *                    the quarantine pruned
     * @param failing     whether a change was put back (or would have been, under report)
     */
    public record Report(List<Change> changes, List<Path> unaudited, List<Diagnostic> diagnostics, List<String> notes,
            boolean failing) {
        public Report {
            changes = List.copyOf(changes);
            unaudited = List.copyOf(unaudited);
            diagnostics = List.copyOf(diagnostics);
            notes = List.copyOf(notes);
        }

        public Report(List<Change> changes, List<Path> unaudited, List<Diagnostic> diagnostics) {
            this(changes, unaudited, diagnostics, List.of(), !changes.isEmpty());
        }

        /**
         * Whether the run changed a control file in a way the audit put back (a repository it
         * created and a harmless config change are kept and do not count), or left a directory
         * the audit cannot see into ({@link Unlisted}), and so fails.
         */
        public boolean changed() {
            return failing || !unaudited.isEmpty();
        }
    }

    /** The workspace's control entries before the run, and what is needed to find new ones cheaply. */
    public final class Baseline {
        private final Scan.Walk walk;
        private final Snapshot snapshot;
        /** Whether {@link #walk} rescanned a walk the state dir's file holds ({@link AuditCaches#filed}). */
        private final boolean rescanned;

        /** What earlier runs left unaudited ({@link AuditCaches#unaudited}). */
        private final Set<Path> carried;

        /** The kernel's events since before {@link #walk} started, if any. */
        private final EventPass events;
        private volatile AfterPass pass;

        /** How {@link #after} found what changed; empty until it ran. */
        public Optional<AfterPass> afterPass() {
            return Optional.ofNullable(pass);
        }

        private Baseline(Scan.Walk walk, boolean rescanned, Set<Path> carried, EventPass events) {
            this.events = events;
            this.walk = walk;
            this.rescanned = rescanned;
            this.carried = Set.copyOf(carried);
            this.snapshot = Snapshot.of(walk.controls());
        }

        public Snapshot snapshot() {
            return snapshot;
        }

        /** How many directories the walk listed. */
        public int directories() {
            return walk.dirs().size();
        }

        /** The control entries now, without comparing or restoring anything. */
        public Snapshot current() {
            return Snapshot.of(new Scan(names, reader).rescan(walk.previous(), roots).controls());
        }

        /** As {@link #after(ControlFilesAction, String)}, under a fresh id of its own. */
        public Report after(ControlFilesAction action) {
            if (quarantine.isEmpty()) {
                // Nothing is kept, so no id names it.
                return after(action, "unkept");
            }
            byte[] id = new byte[8];
            new java.security.SecureRandom().nextBytes(id);
            return after(action, java.util.HexFormat.of().formatHex(id));
        }

        /**
         * Compares with now, restores unless {@code action} is report, and reports. Call once
         * the child's group is gone. What is removed or put back is kept first in the
         * quarantine, under {@code runId}, when this audit has one.
         */
        public Report after(ControlFilesAction action, String runId) {
            // Before the events are read: every change they do not hold came after this.
            long since = Scan.nowNanos();
            EventPass.Outcome outcome = events.drain();
            caches.lastPass(outcome.pass());
            pass = outcome.pass();
            List<Path> setid = new ArrayList<>();
            Scan.Walk now = new Scan(names, reader).rescan(walk.previous(), roots, outcome.touched(), since, setid);
            // What the next run starts from: this walk, whose start precedes any restore below,
            // so the directories restoring writes to are listed again next time.
            Scan.Previous next = now.previous();
            caches.walks.put(key, next);
            // The kept walk still holds when neither pass listed a directory (so none changed
            // since it started) and no control entry changed: rewriting it would only move its
            // start forward, which the next run's rescan does not need. A few ms per run.
            Snapshot after = Snapshot.of(now.controls());
            boolean stillHolds = rescanned && walk.listed() == 0 && now.listed() == 0 && walk.unlisted().isEmpty()
                    && now.unlisted().isEmpty()
                    && snapshot.entries().equals(after.entries());
            boolean saved = !stillHolds && cache.map(c -> c.save(key, now)).orElse(false);
            if (stillHolds || saved) {
                caches.filed.put(filedKey(), next);
            } else {
                caches.filed.remove(filedKey());
            }
            List<Path> unaudited = unaudited(walk.unlisted(), now.unlisted(), carried);
            // Beneath a directory that could not be listed before the run and can now, nothing
            // was recorded: every control entry there now is taken as the run's (created, and
            // so removed again), and the run fails as unaudited all the same, since what was
            // there before, and may have been changed or removed, is unknown.
            List<Path> reopened = reopened(unaudited, now.unlisted());
            List<Path> hidden = new ArrayList<>(unaudited);
            hidden.removeAll(reopened);
            remember(hidden);
            // Beneath a directory searchable but not readable both times, what the walks looked
            // up by name (Walker#byName) was recorded the same way twice: compared as usual.
            List<Path> byName = searchableBoth(walk.unlisted(), now.unlisted());
            // With nothing hidden, outside(now.controls(), ...) is Snapshot.of(now.controls()): made once, above.
            Snapshot was = outside(snapshot.entries(), unaudited, reopened, byName);
            Snapshot is = hidden.isEmpty() ? after : outside(now.controls(), hidden, List.of(), byName);
            List<Change> changes = Comparison.between(was, is);
            if (changes.isEmpty() && unaudited.isEmpty() && setid.isEmpty()) {
                return new Report(List.of(), List.of(), List.of());
            }
            Optional<Quarantine.Box> box = quarantine.map(q -> q.box(runId));
            List<Diagnostic> setidFound = new ArrayList<>();
            setid.sort(PathOrder.INSTANCE);
            for (Path p : setid) {
                setidFound.add(setid(p, action, box));
            }
            Restorer restorer = new Restorer(reader, new AncestorCheck(reader, roots));
            List<Diagnostic> out = new ArrayList<>();
            List<String> notes = new ArrayList<>();
            Set<Path> gitDirs = names.gitDirs();
            List<AuditPlan.Step> steps = new ArrayList<>(AuditPlan.of(changes, was, is, ControlFileAudit.this::inside,
                    p -> java.nio.file.Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS), p -> gitDirs.contains(p)
                            || gitDirs.contains(real(p))));
            // Removals first, deepest first; then the rest, parents before children.
            steps.sort((a, b) -> {
                boolean ca = removal(a);
                boolean cb = removal(b);
                if (ca != cb) {
                    return ca ? -1 : 1;
                }
                int c = PathOrder.INSTANCE.compare(a.path(), b.path());
                return ca ? -c : c;
            });
            boolean kept = !setid.isEmpty() && box.isPresent() && action == ControlFilesAction.RESTORE;
            boolean failing = false;
            java.util.Map<AuditPlan.Step, Outcome> done = new java.util.HashMap<>();
            for (AuditPlan.Step step : steps) {
                failing |= step.fails();
                if (step instanceof AuditPlan.Step.Accept a) {
                    continue;
                }
                Outcome o = action == ControlFilesAction.RESTORE ? carryOut(step, restorer, box, snapshot)
                        : new Outcome(Optional.empty(), List.of());
                kept |= !o.kept().isEmpty();
                done.put(step, o);
            }
            // Reported in path order.
            steps.sort((a, b) -> PathOrder.INSTANCE.compare(a.path(), b.path()));
            for (AuditPlan.Step step : steps) {
                if (step instanceof AuditPlan.Step.Accept a) {
                    if (!a.note().isEmpty()) {
                        notes.add("magus: " + a.note() + ", " + shown(a.path()));
                    }
                } else if (step instanceof AuditPlan.Step.Restore r) {
                    out.add(diagnostic(r.change(), action, done.get(step), r.why()));
                } else if (step instanceof AuditPlan.Step.Revise v) {
                    out.add(revised(v, action, done.get(step)));
                } else if (step instanceof AuditPlan.Step.Neutralise n) {
                    notes.add(neutralised(n, action, done.get(step)));
                }
            }
            if (kept) {
                notes.addAll(prune(quarantine.get(), retention, runId));
            }
            out.addAll(setidFound);
            failing |= !setid.isEmpty();
            for (Path u : unaudited) {
                boolean earlier = carried.contains(u);
                out.add(reopened.contains(u) ? reopenedDiagnostic(u, action, earlier) : unauditedDiagnostic(u, earlier));
            }
            return new Report(changes, unaudited, out, notes, failing);
        }
    }

    /**
     * The MGS2002 of a set-user-ID or set-group-ID regular file the run left ({@link
     * Scan#rescan(Scan.Previous, List, Optional, long, List)}): the seccomp layer refuses
     * setting those bits to every confined child, so one here came another way (a run without
     * the kernel layer, a hard link to a system binary). Unless the workspace says report, the
     * file is kept in the quarantine as the run left it and its two bits are cleared in place:
     * the rest of what the build made stays usable, and no one can run it with its owner's rights.
     */
    private Diagnostic setid(Path p, ControlFilesAction action, Optional<Quarantine.Box> box) {
        String done;
        Outcome o = null;
        if (action == ControlFilesAction.RESTORE) {
            List<Kept> kept = new ArrayList<>();
            Optional<String> lost = Optional.empty();
            Optional<Quarantine.Prepared> prepared = Optional.empty();
            if (box.isPresent()) {
                try {
                    prepared = Optional.of(box.get().keep(p));
                } catch (java.io.IOException | RuntimeException e) {
                    lost = Optional.of("the run's version could not be kept in the quarantine (" + e + ") and is lost");
                }
            }
            try {
                int mode = (Integer) java.nio.file.Files.getAttribute(p, "unix:mode", java.nio.file.LinkOption.NOFOLLOW_LINKS);
                java.nio.file.Files.setAttribute(p, "unix:mode", mode & 07777 & ~Walker.SETID_BITS,
                        java.nio.file.LinkOption.NOFOLLOW_LINKS);
                done = "; its set-user-ID and set-group-ID bits are cleared";
            } catch (java.io.IOException | RuntimeException e) {
                done = "; its set-id bits could not be cleared (" + e + ")";
            }
            if (prepared.isPresent()) {
                try {
                    kept.add(box.get().record(prepared.get(), Code.MGS2002.name(), "mode",
                            "a set-user-ID or set-group-ID file"));
                } catch (java.io.IOException | RuntimeException e) {
                    done += "; the quarantine's manifest could not be written (" + e + ")";
                }
            }
            o = new Outcome(Optional.empty(), kept, lost);
        } else {
            done = "; left as it is (sandbox.controlFiles: report)";
        }
        String message = "write denied: the run left a set-user-ID or set-group-ID file, " + shown(p)
                + ", which anyone who runs it would run with its owner's or group's rights" + done + quarantined(o);
        java.util.Map<String, String> details = new java.util.TreeMap<>();
        details.put(DetailKey.REASON.key(), "set-user-ID or set-group-ID mode");
        details.put(DetailKey.CLASS.key(), "attack");
        details.put(DetailKey.ATTACK.key(), "a set-user-ID or set-group-ID file runs with its owner's or group's rights"
                + " for whoever starts it");
        Diagnostic d = new Diagnostic(Code.MGS2002, message, p.toString(), Operation.WRITE, Layer.AUDIT, "audit", details);
        return o == null ? d : withQuarantine(d, o);
    }

    /** What carrying out one step did: why it was not done (empty: done), and what the quarantine holds of it. */
    record Outcome(Optional<String> notDone, List<Kept> kept, Optional<String> lost) {
        Outcome(Optional<String> notDone, List<Kept> kept) {
            this(notDone, kept, Optional.empty());
        }
    }

    private static boolean removal(AuditPlan.Step s) {
        return s instanceof AuditPlan.Step.Neutralise
                || s instanceof AuditPlan.Step.Restore r && r.change() instanceof Change.Created;
    }

    /** The paths a step writes: the entry and, for a control link whose target changed, the file it led to. */
    private static List<Path> written(AuditPlan.Step step) {
        List<Path> out = new ArrayList<>(List.of(step.path()));
        if (step instanceof AuditPlan.Step.Restore r && r.change() instanceof Change.Changed ch
                && ch.aspects().contains(Change.Aspect.TARGET) && ch.was() instanceof Node.Link l
                && l.resolved().isPresent() && !l.resolved().get().path().equals(step.path())) {
            out.add(l.resolved().get().path());
        }
        return out;
    }

    /** Keeps what is at the step's paths in the quarantine, then carries the step out ({@link #keepThen}). */
    private Outcome carryOut(AuditPlan.Step step, Restorer restorer, Optional<Quarantine.Box> box, Snapshot snapshot) {
        if (step instanceof AuditPlan.Step.Restore r) {
            return keepThen(written(step), restorer, box, () -> restorer.undo(r.change(), snapshot), Code.MGS2002.name(),
                    r.change().verb(), what(r.change()));
        }
        if (step instanceof AuditPlan.Step.Revise v) {
            return keepThen(written(step), restorer, box, () -> restorer.write(v.path(), new Node.File(v.permissions(),
                    Node.Content.of(dev.magus.policy.git.GitConfigParser.bytes(v.text())))), Code.MGS2002.name(),
                    "keys", v.reverted().stream().map(dev.magus.workspace.audit.gitconfig.KeyChange::said)
                            .collect(Collectors.joining(", ")));
        }
        AuditPlan.Step.Neutralise n = (AuditPlan.Step.Neutralise) step;
        return keepThen(written(step), restorer, box,
                () -> restorer.undo(new Change.Created(n.path(), n.entry(), n.now(), 0), snapshot), "info", "created",
                "a hook of a repository the run created");
    }

    /**
     * Keeps what is at {@code paths} in the quarantine, then does {@code act} (a restore, a
     * removal), then writes the manifest lines with what it left. What cannot be kept (the
     * state dir's disk full, perhaps filled by the run itself) is taken out all the same and
     * the outcome says it was lost: a planted file must not stay for want of room to keep a
     * copy of it. The audits' one way of taking something out of a workspace.
     */
    static Outcome keepThen(List<Path> paths, Restorer restorer, Optional<Quarantine.Box> box,
            java.util.function.Supplier<Optional<String>> act, String code, String change, String what) {
        List<Quarantine.Prepared> prepared = new ArrayList<>();
        Optional<String> lost = Optional.empty();
        if (box.isPresent()) {
            try {
                for (Path p : paths) {
                    // Beneath a directory swapped for a link nothing is written (Restorer), so nothing is kept.
                    if (restorer.beneathRealDirectories(p)) {
                        prepared.add(box.get().keep(p));
                    }
                }
            } catch (java.io.IOException | RuntimeException e) {
                lost = Optional.of("the run's version could not be kept in the quarantine (" + e + ") and is lost");
            }
        }
        Optional<String> notDone = act.get();
        List<Kept> kept = new ArrayList<>();
        if (box.isPresent()) {
            for (Quarantine.Prepared p : prepared) {
                try {
                    kept.add(box.get().record(p, code, change, what));
                } catch (java.io.IOException | RuntimeException e) {
                    notDone = Optional.of(notDone.map(w -> w + "; ").orElse("")
                            + "the quarantine's manifest could not be written (" + e + ")");
                }
            }
        }
        return new Outcome(notDone, kept, lost);
    }

    /** Prunes {@code quarantine} to {@code retention}, sparing {@code runId}: the info lines that say what it dropped. */
    static List<String> prune(Quarantine quarantine, Retention retention, String runId) {
        List<String> notes = new ArrayList<>();
        try {
            for (Quarantine.Pruned p : quarantine.prune(retention, java.time.Instant.now(), Set.of(runId))) {
                notes.add("magus: the quarantine dropped run " + p.runId() + " (" + p.bytes() + " bytes, kept since "
                        + p.created() + "): " + p.why());
            }
        } catch (java.io.IOException | RuntimeException e) {
            notes.add("magus: the quarantine could not be pruned: " + e);
        }
        return notes;
    }

    /** {@code p} with its links resolved; itself when it cannot be. */
    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (java.io.IOException | RuntimeException e) {
            return p;
        }
    }

    /** Whether {@code p} (absolute, normalised) lies inside the workspace, its links resolved as far as it exists. */
    boolean inside(Path p) {
        Path root = files.workspaceRoot();
        Path existing = p;
        while (existing != null && !java.nio.file.Files.exists(existing, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return false;
        }
        try {
            Path real = existing.toRealPath().resolve(existing.relativize(p)).normalize();
            return real.startsWith(root.toRealPath());
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
    }

    /** What the message adds about the quarantine. */
    static String quarantined(Outcome o) {
        if (o != null && o.lost().isPresent()) {
            return "; " + o.lost().get();
        }
        if (o == null || o.kept().isEmpty()) {
            return "";
        }
        Kept k = o.kept().get(0);
        return "; the run's version is kept in the quarantine as " + k.name() + " (magus quarantine restore "
                + k.runId() + " " + k.index() + ")";
    }

    static Diagnostic withQuarantine(Diagnostic d, Outcome o) {
        return o == null || o.kept().isEmpty() ? d : d.withDetail(DetailKey.QUARANTINE, o.kept().get(0).name());
    }

    /** The MGS2002 of a config put back key by key. */
    Diagnostic revised(AuditPlan.Step.Revise v, ControlFilesAction action, Outcome o) {
        Optional<String> notDone = o == null ? Optional.empty() : o.notDone();
        String keys = v.reverted().stream().map(dev.magus.workspace.audit.gitconfig.KeyChange::said)
                .collect(Collectors.joining(", "));
        String done;
        if (action == ControlFilesAction.REPORT) {
            done = "left as it is (sandbox.controlFiles: report)";
        } else if (notDone.isPresent()) {
            done = "NOT put back: " + notDone.get();
        } else {
            done = "put back key by key, the rest of the file left as the run wrote it";
        }
        String kept = v.kept().isEmpty() ? "" : "; kept: " + v.kept().stream()
                .map(dev.magus.workspace.audit.gitconfig.KeyChange::said).collect(Collectors.joining(", "));
        String message = "write to a control file: " + shown(v.path()) + " was " + v.verb()
                + " during the run, setting keys a later git obeys: " + keys + "; " + done + kept + quarantined(o);
        Diagnostic d = new Diagnostic(Code.MGS2002, message, v.path().toString(), Operation.WRITE, Layer.AUDIT, "audit",
                java.util.Map.of());
        d = d.withDetail(DetailKey.CHANGE, v.verb()).withDetail(DetailKey.ENTRY, v.entry())
                .withDetail(DetailKey.WHAT, "keys: " + keys)
                .withDetail(DetailKey.RESTORED, Boolean.toString(action == ControlFilesAction.RESTORE && notDone.isEmpty()));
        return withQuarantine(d, o);
    }

    /** The info line of a hook taken out of a repository the run created. */
    String neutralised(AuditPlan.Step.Neutralise n, ControlFilesAction action, Outcome o) {
        if (action == ControlFilesAction.REPORT) {
            return "magus: " + shown(n.path()) + " is a hook in a repository the run created; left as it is"
                    + " (sandbox.controlFiles: report)";
        }
        if (o != null && o.notDone().isPresent()) {
            return "magus: " + shown(n.path()) + " is a hook in a repository the run created; NOT taken out: "
                    + o.notDone().get();
        }
        return "magus: neutralised " + shown(n.path()) + ", a hook in a repository the run created (the repository is kept)"
                + quarantined(o);
    }

    /**
     * The directories whose insides this run may have changed unseen: each one that cannot be
     * listed after the run, unless it could not be before either and provably kept everyone
     * out meanwhile ({@link Unlisted#untouchedBy}); and each one that could not be listed
     * before and can now (what is beneath it was never recorded). Outermost only.
     */
    List<Path> unaudited(List<Unlisted> before, List<Unlisted> after, Set<Path> carried) {
        java.util.Map<Path, Unlisted> was = new java.util.HashMap<>();
        before.forEach(u -> was.put(u.path(), u));
        java.util.Map<Path, Unlisted> now = new java.util.HashMap<>();
        after.forEach(u -> now.put(u.path(), u));
        java.util.TreeSet<Path> out = new java.util.TreeSet<>(PathOrder.INSTANCE);
        for (Unlisted n : after) {
            Unlisted b = was.get(n.path());
            if (b == null || !b.untouchedBy(n)) {
                out.add(n.path());
            }
        }
        for (Unlisted b : before) {
            if (!now.containsKey(b.path()) && reader.stat(b.path().toString()).isPresent()) {
                out.add(b.path());
            }
        }
        // What an earlier run left unaudited: still hidden (and failing) or, when it can be
        // listed now, reopened; forgotten only once it is gone.
        for (Path c : carried) {
            if (after.stream().anyMatch(n -> c.startsWith(n.path())) || reader.stat(c.toString()).isPresent()) {
                out.add(c);
            }
        }
        List<Path> outer = new ArrayList<>();
        for (Path p : out) {
            if (outer.stream().noneMatch(p::startsWith)) {
                outer.add(p);
            }
        }
        return outer;
    }

    /**
     * Which of {@code unaudited} could not be listed before the run and can be now: none of
     * {@code after} (what the rescan could not list) is it or holds it.
     */
    static List<Path> reopened(List<Path> unaudited, List<Unlisted> after) {
        List<Path> out = new ArrayList<>();
        for (Path u : unaudited) {
            if (after.stream().noneMatch(n -> u.startsWith(n.path()))) {
                out.add(u);
            }
        }
        return out;
    }

    /**
     * The entries at none of {@code unaudited} nor beneath one, except that each of
     * {@code kept} (one of them) stays itself: what can be compared.
     */
    private static Snapshot outside(java.util.Map<Path, Snapshot.Recorded> entries, List<Path> unaudited,
            List<Path> kept, List<Path> byName) {
        if (unaudited.isEmpty()) {
            return Snapshot.of(entries);
        }
        java.util.Map<Path, Snapshot.Recorded> out = new java.util.HashMap<>();
        entries.forEach((p, r) -> {
            if (kept.contains(p) || unaudited.stream().noneMatch(p::startsWith)
                    || byName.stream().anyMatch(d -> p.startsWith(d) && !p.equals(d))) {
                out.put(p, r);
            }
        });
        return Snapshot.of(out);
    }

    /** The directories that could not be listed, yet could be searched, both before and after the run. */
    static List<Path> searchableBoth(List<Unlisted> before, List<Unlisted> after) {
        List<Path> out = new ArrayList<>();
        for (Unlisted b : before) {
            if (b.searchable() && b.parent() != Unlisted.IN_CONTROL && after.stream()
                    .anyMatch(a -> a.path().equals(b.path()) && a.searchable() && a.parent() != Unlisted.IN_CONTROL)) {
                out.add(b.path());
            }
        }
        return out;
    }

    /** Keeps {@code hidden} as what this workspace's next run must see through ({@link AuditCaches#unaudited}). */
    private void remember(List<Path> hidden) {
        if (hidden.isEmpty()) {
            caches.unaudited.remove(key);
        } else {
            caches.unaudited.put(key, Set.copyOf(hidden));
        }
        cache.ifPresent(c -> c.saveUnaudited(key, hidden));
    }

    /** The MGS2002 that says the run opened a directory the audit could not list before it. */
    Diagnostic reopenedDiagnostic(Path dir, ControlFilesAction action, boolean earlier) {
        String when = earlier ? "after an earlier run (which failed naming it)" : "before the run";
        String message = "control files beneath " + shown(dir) + " cannot be audited: magus could not list it " + when
                + " and can now, so what was beneath it then is unknown and a control file changed or"
                + " removed there cannot be ruled out; every control file beneath it now was taken as "
                + (earlier ? "that earlier run's" : "the run's")
                + (action == ControlFilesAction.RESTORE ? " and removed" : " (left as it is, sandbox.controlFiles: report)")
                + ". Inspect what is beneath it before trusting it, or remove it";
        return new Diagnostic(Code.MGS2002, message, dir.toString(), Operation.WRITE, Layer.AUDIT, "audit",
                java.util.Map.of()).withDetail(DetailKey.CHANGE, "unaudited").withDetail(DetailKey.RESTORED, "false");
    }

    /** The MGS2002 that says the run left a directory the audit cannot see into. */
    Diagnostic unauditedDiagnostic(Path dir, boolean earlier) {
        String message = "control files beneath " + shown(dir) + " cannot be audited: magus cannot list it after "
                + (earlier ? "an earlier run, nor now," : "the run")
                + " (no read or search permission, a path too long, or a name in it that is not valid UTF-8), so a control file "
                + (earlier ? "a run" : "the run") + " created or changed"
                + " there cannot be ruled out; only the fixed control-file names beneath it were checked, nothing else"
                + " was compared or restored, and every run fails until it is dealt with. Remove it, or inspect what"
                + " is beneath it (as root, or after chmod u+rwx) before any tool obeys it: the next run treats every"
                + " control file then found beneath it as planted and removes it";
        return new Diagnostic(Code.MGS2002, message, dir.toString(), Operation.WRITE, Layer.AUDIT, "audit",
                java.util.Map.of()).withDetail(DetailKey.CHANGE, "unaudited").withDetail(DetailKey.RESTORED, "false");
    }

    /** The MGS2002 that says what happened to one control entry, and what magus did about it. */
    Diagnostic diagnostic(Change c, ControlFilesAction action, Optional<String> notRestored) {
        return diagnostic(c, action, new Outcome(notRestored, List.of()), "");
    }

    Diagnostic diagnostic(Change c, ControlFilesAction action, Outcome o, String why) {
        Optional<String> notRestored = o == null ? Optional.empty() : o.notDone();
        String shown = shown(c.path());
        String what = what(c);
        String done;
        if (action == ControlFilesAction.REPORT) {
            done = "left as it is (sandbox.controlFiles: report)";
        } else if (notRestored.isPresent()) {
            done = "NOT restored: " + notRestored.get();
        } else {
            done = c instanceof Change.Created ? "removed again" : "restored";
        }
        int folded = c.beneath();
        String beneath = folded == 0 ? "" : " with " + folded + (folded == 1 ? " entry" : " entries") + " beneath it";
        String message = "write to a control file: " + shown + " was " + c.verb() + beneath
                + (what.isEmpty() ? "" : " (" + what + ")") + " during the run" + (why.isEmpty() ? "" : ": " + why)
                + "; " + done + quarantined(o);
        Diagnostic d = new Diagnostic(Code.MGS2002, message, c.path().toString(), Operation.WRITE, Layer.AUDIT, "audit",
                java.util.Map.of());
        d = d.withDetail(DetailKey.CHANGE, c.verb()).withDetail(DetailKey.ENTRY, c.entry())
                .withDetail(DetailKey.RESTORED, Boolean.toString(action == ControlFilesAction.RESTORE && notRestored.isEmpty()));
        if (!what.isEmpty()) {
            d = d.withDetail(DetailKey.WHAT, what);
        }
        Optional<Path> target = target(c);
        if (target.isPresent()) {
            d = d.withDetail(DetailKey.TARGET, target.get().toString());
        }
        return withQuarantine(d, o);
    }

    /** For a control link whose target changed, the file it led to (else the one it leads to now). */
    private static Optional<Path> target(Change c) {
        if (c instanceof Change.Changed ch && ch.aspects().contains(Change.Aspect.TARGET)
                && ch.was() instanceof Node.Link l && ch.now() instanceof Node.Link m) {
            return l.resolved().or(m::resolved).map(Node.Resolved::path);
        }
        return Optional.empty();
    }

    private String what(Change c) {
        if (c instanceof Change.Created cr && !(cr.now() instanceof Node.File)) {
            return "a " + cr.now().kind() + (cr.now() instanceof Node.Link l ? " to " + l.target() : "");
        }
        if (c instanceof Change.Changed ch) {
            String aspects = ch.aspects().stream().sorted().map(Change.Aspect::word).collect(Collectors.joining(", "));
            if (ch.aspects().contains(Change.Aspect.TYPE)) {
                return "was a " + ch.was().kind() + ", now a " + ch.now().kind();
            }
            Optional<Path> target = target(c);
            if (target.isPresent()) {
                Node.Link l = (Node.Link) ch.was();
                Node.Link m = (Node.Link) ch.now();
                String how;
                if (l.resolved().isPresent() && m.resolved().isPresent()
                        && l.resolved().get().path().equals(m.resolved().get().path())) {
                    Node.Resolved a = l.resolved().get();
                    Node.Resolved b = m.resolved().get();
                    how = (a.content().equals(b.content()) ? "" : "content")
                            + (a.content().equals(b.content()) || a.permissions() == b.permissions() ? "" : ", ")
                            + (a.permissions() == b.permissions() ? "" : "mode") + " changed";
                } else if (m.resolved().isPresent()) {
                    how = "no longer what it leads to, which is now " + shown(m.resolved().get().path());
                } else {
                    how = "no longer a regular file it leads to";
                }
                String link = ch.aspects().contains(Change.Aspect.LINK) ? "link target, " : "";
                return link + "the file it links to, " + shown(target.get()) + ": " + how;
            }
            return aspects;
        }
        return "";
    }

    /** The path relative to the workspace root when inside it, else as it is. */
    private String shown(Path p) {
        Path root = roots.get(0);
        return p.startsWith(root) && !p.equals(root) ? root.relativize(p).toString() : p.toString();
    }
}
