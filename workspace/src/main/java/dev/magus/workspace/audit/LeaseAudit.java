package dev.magus.workspace.audit;

import dev.magus.events.Code;
import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.policy.lease.Narrowing;
import dev.magus.policy.lease.WriteGlob;
import dev.magus.policy.path.DirectoryReader;
import dev.magus.policy.path.DirectoryReader.Entry;
import dev.magus.policy.path.DirectoryReader.Kind;
import dev.magus.policy.path.DirectoryReader.Listing;
import dev.magus.policy.path.DirectoryReader.Stamp;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.quarantine.Quarantine;
import dev.magus.workspace.quarantine.Retention;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The lease audit of one run: what a confined child wrote where the kernel granted its job
 * more than the job's write_paths. Landlock has no globs, so for {@code docs/*.md} the kernel
 * grants all of {@code docs/} ({@link dev.magus.policy.lease.Enforcement#WIDER}).
 * {@link #before} records every entry of those directories no glob covers;
 * {@link Baseline#after}, once the run's process group is gone, compares ({@link Comparison}):
 * each change is an MGS2002 with layer {@code audit} naming the job, kept in the quarantine and
 * put back ({@link Restorer}). Coverage is the binding layer's own check
 * ({@link Narrowing.Narrowed#permitsWrite}), so {@code magus check write} and the run agree.
 *
 * <p>A lease carried from a parent run ({@code MAGUS_LEASE}) is audited by the run that
 * carried it. {@code sandbox.controlFiles: report} does not apply: the checkout's own
 * {@code magus.yaml} cannot loosen the lease its job was given.
 */
public final class LeaseAudit {
    /** Deeper than this beneath a wider directory, the audit does not go: the run fails as unaudited. */
    static final int MAX_DEPTH = 256;

    /** A directory the kernel granted wider, and the lease whose job it is. */
    record Region(Path dir, Narrowing.Narrowed lease) {
        Region {
            Objects.requireNonNull(dir, "dir");
            Objects.requireNonNull(lease, "lease");
        }
    }

    private final List<Region> regions;
    /** Every lease on the run: a path is refused when any of them refuses it, as in the binding check. */
    private final List<Narrowing.Narrowed> leases;
    private final DirectoryReader reader;
    private final Optional<Quarantine> quarantine;
    private final Retention retention;

    private LeaseAudit(List<Region> regions, List<Narrowing.Narrowed> leases, DirectoryReader reader,
            Optional<Quarantine> quarantine, Retention retention) {
        this.regions = List.copyOf(regions);
        this.leases = List.copyOf(leases);
        this.reader = reader;
        this.quarantine = quarantine;
        this.retention = retention;
    }

    /** The audit of a run narrowed by {@code leases}, with the installed directory reader. */
    public static LeaseAudit of(List<Narrowing.Narrowed> leases) {
        return of(leases, Readers.installed());
    }

    /** As {@link #of(List)}, listing and stat-ing through {@code reader}: for tests and benchmarks. */
    public static LeaseAudit of(List<Narrowing.Narrowed> leases, DirectoryReader reader) {
        List<Region> regions = new ArrayList<>();
        for (Narrowing.Narrowed n : leases) {
            if (n.job().store().isEmpty()) {
                continue;
            }
            for (Path dir : n.widerDirs()) {
                if (regions.stream().noneMatch(r -> dir.startsWith(r.dir()))) {
                    regions.removeIf(r -> r.dir().startsWith(dir));
                    regions.add(new Region(dir, n));
                }
            }
        }
        return new LeaseAudit(regions, leases, Objects.requireNonNull(reader, "reader"), Optional.empty(),
                Retention.DEFAULT);
    }

    /** This audit, keeping what it takes in {@code state}'s quarantine first, pruned to {@code retention}. */
    public LeaseAudit quarantiningIn(StateDir state, Retention retention) {
        return new LeaseAudit(regions, leases, reader, Optional.of(Quarantine.in(state)), retention);
    }

    /** The directories it records: none when no lease's glob is wider for the kernel. */
    public List<Path> dirs() {
        return regions.stream().map(Region::dir).toList();
    }

    /** Records the uncovered entries of the wider directories now: call right before the child starts. */
    public Baseline before() {
        long since = Scan.nowNanos();
        Recording r = record(null);
        return new Baseline(Snapshot.of(r.entries), r, since);
    }

    /** The uncovered entries before the run, and the directories that could not be recorded then. */
    public final class Baseline {
        private final Snapshot snapshot;
        private final List<Path> unaudited;
        /** What the after pass reuses of the before pass: its stamps, and when it started. */
        private final Recording recorded;
        private final long since;

        private Baseline(Snapshot snapshot, Recording recorded, long since) {
            this.snapshot = snapshot;
            this.unaudited = List.copyOf(recorded.unaudited);
            this.recorded = recorded;
            this.since = since;
        }

        public Snapshot snapshot() {
            return snapshot;
        }

        /**
         * Compares with now, puts back what changed (the run's version kept first in the
         * quarantine under {@code runId}, when this audit has one) and reports. Call once the
         * child's group is gone.
         */
        public Report after(String runId) {
            Recording now = record(this);
            List<Path> unaudited = new ArrayList<>(this.unaudited);
            now.unaudited.stream().filter(p -> !unaudited.contains(p)).forEach(unaudited::add);
            // Beneath what could not be recorded before, nothing is known of then: not compared.
            Snapshot was = this.unaudited.isEmpty() ? snapshot : outside(snapshot.entries(), this.unaudited);
            List<Change> changes = Comparison.between(was, outside(now.entries, this.unaudited));
            if (changes.isEmpty() && unaudited.isEmpty()) {
                return new Report(List.of(), List.of(), false);
            }
            Optional<Quarantine.Box> box = quarantine.map(q -> q.box(runId));
            Restorer restorer = new Restorer(reader, new AncestorCheck(reader, dirs()));
            // Removals first, deepest first; then the rest, parents before children.
            List<Change> order = new ArrayList<>(changes);
            order.sort((a, b) -> {
                boolean ca = a instanceof Change.Created;
                boolean cb = b instanceof Change.Created;
                if (ca != cb) {
                    return ca ? -1 : 1;
                }
                int c = PathOrder.INSTANCE.compare(a.path(), b.path());
                return ca ? -c : c;
            });
            Map<Change, ControlFileAudit.Outcome> done = new HashMap<>();
            for (Change c : order) {
                done.put(c, ControlFileAudit.keepThen(List.of(c.path()), restorer, box,
                        () -> restorer.undo(c, was), Code.MGS2002.name(), c.verb(), "outside the lease's write_paths"));
            }
            List<Diagnostic> out = new ArrayList<>();
            for (Change c : changes) {
                out.add(diagnostic(c, done.get(c)));
            }
            for (Path u : unaudited) {
                out.add(unauditedDiagnostic(u));
            }
            List<String> notes = new ArrayList<>();
            if (quarantine.isPresent() && done.values().stream().anyMatch(o -> !o.kept().isEmpty())) {
                notes.addAll(ControlFileAudit.prune(quarantine.get(), retention, runId));
            }
            return new Report(out, notes, true);
        }
    }

    private static Snapshot outside(Map<Path, Snapshot.Recorded> entries, List<Path> unaudited) {
        Map<Path, Snapshot.Recorded> out = new HashMap<>(entries);
        out.keySet().removeIf(p -> unaudited.stream().anyMatch(p::startsWith));
        return Snapshot.of(out);
    }

    /**
     * What one run's lease audit found.
     *
     * @param diagnostics an MGS2002 per entry the run wrote outside the globs, naming the job
     * @param notes       info lines: what the quarantine pruned
     * @param failing     whether anything was put back, or could not be audited: the run fails
     */
    public record Report(List<Diagnostic> diagnostics, List<String> notes, boolean failing) {
        public Report {
            diagnostics = List.copyOf(diagnostics);
            notes = List.copyOf(notes);
        }
    }

    /** The lease that refuses a write at {@code p}, if any: the region's own first. */
    private Optional<Narrowing.Narrowed> refusing(Path p) {
        Optional<Region> region = region(p);
        if (region.isPresent() && !region.get().lease().permitsWrite(p)) {
            return Optional.of(region.get().lease());
        }
        return leases.stream().filter(l -> !l.permitsWrite(p)).findFirst();
    }

    private Optional<Region> region(Path p) {
        return regions.stream().filter(r -> p.startsWith(r.dir())).findFirst();
    }

    /** What one recording found: the uncovered entries and their stamps, and what could not be listed or read. */
    private static final class Recording {
        final Map<Path, Snapshot.Recorded> entries = new HashMap<>();
        final Map<Path, Stamp> stamps = new HashMap<>();
        final List<Path> unaudited = new ArrayList<>();
    }

    /**
     * Records every uncovered entry beneath the regions. After the run ({@code before} given),
     * a directory the run created on the way to what a glob covers is left out: it is needed
     * there, and what else is beneath it is judged on its own; and a regular file whose stamp
     * is the one it had before, with times older than the before pass's start less
     * {@link Scan#SLACK_NANOS}, is taken as it was without reading it again (a write sets its
     * mtime and ctime, a rename in its inode and ctime, a chmod its ctime, and ctime cannot be
     * set back; the slack covers the kernel's coarse clock, as in {@link Scan}).
     */
    private Recording record(Baseline before) {
        Recording r = new Recording();
        for (Region region : regions) {
            String entry = region.lease().scope().checkout().relativize(region.dir()) + "/";
            walk(region.dir(), 0, entry, before, r);
        }
        return r;
    }

    /** Records beneath {@code dir}; whether anything beneath it is covered by a glob. */
    private boolean walk(Path dir, int depth, String entry, Baseline before, Recording r) {
        Optional<Listing> listing = reader.list(dir.toString());
        if (listing.isEmpty() || depth >= MAX_DEPTH) {
            if (reader.stat(dir.toString()).map(s -> s.kind() == Kind.DIRECTORY).orElse(false)) {
                r.unaudited.add(dir);
            }
            return false;
        }
        boolean covered = false;
        for (Entry e : listing.get().entries()) {
            Path p = dir.resolve(e.name());
            if (refusing(p).isEmpty()) {
                // A glob covers it and all beneath it.
                covered = true;
                continue;
            }
            Optional<Stamp> st = reader.stat(p.toString());
            if (st.isEmpty()) {
                // Listed, yet gone or not stat-able: nothing recorded, so it cannot be told apart.
                if (!reader.absent(p.toString())) {
                    r.unaudited.add(p);
                }
                continue;
            }
            Node node = unchanged(p, st.get(), before).orElseGet(() -> node(p, st.get()));
            r.entries.put(p, new Snapshot.Recorded(node, entry));
            r.stamps.put(p, st.get());
            if (node instanceof Node.Directory && walk(p, depth + 1, entry, before, r)) {
                covered = true;
                if (before != null && !before.snapshot.entries().containsKey(p)) {
                    r.entries.remove(p);
                }
            }
        }
        return covered;
    }

    /** The file as the before pass recorded it, when its stamp says it was not touched since (see {@link #record}). */
    private static Optional<Node> unchanged(Path p, Stamp now, Baseline before) {
        if (before == null || now.kind() != Kind.FILE) {
            return Optional.empty();
        }
        Stamp was = before.recorded.stamps.get(p);
        Snapshot.Recorded r = before.snapshot.entries().get(p);
        if (was == null || r == null || !was.equals(now)
                || Math.max(now.mtimeNanos(), now.ctimeNanos()) >= before.since - Scan.SLACK_NANOS) {
            return Optional.empty();
        }
        return Optional.of(r.node());
    }

    /** The entry as the audit compares it; a link by its target as written, never read through. */
    private static Node node(Path p, Stamp st) {
        if (st.kind() == Kind.LINK) {
            try {
                return new Node.Link(Files.readSymbolicLink(p).toString());
            } catch (IOException | RuntimeException e) {
                return new Node.Other(st.mode());
            }
        }
        return EntryReads.node(p, st);
    }

    private Diagnostic diagnostic(Change c, ControlFileAudit.Outcome o) {
        Narrowing.Narrowed lease = refusing(c.path()).orElseGet(() -> region(c.path()).orElseThrow().lease());
        Path checkout = lease.scope().checkout();
        Optional<String> notDone = o.notDone();
        String done = notDone.map(w -> "NOT " + (c instanceof Change.Created ? "removed" : "restored") + ": " + w)
                .orElse(c instanceof Change.Created ? "removed again" : "restored");
        int folded = c.beneath();
        String beneath = folded == 0 ? "" : " with " + folded + (folded == 1 ? " entry" : " entries") + " beneath it";
        String globs = lease.job().writePaths().stream().map(WriteGlob::text).collect(Collectors.joining(" "));
        String message = "write denied: " + checkout.relativize(c.path()) + " was " + c.verb() + beneath
                + " during the run, outside the write_paths of job " + lease.job().id() + " (" + globs + "); the kernel"
                + " grants all of " + c.entry() + " for them, so the lease audit found it after the run; " + done
                + ControlFileAudit.quarantined(o);
        Diagnostic d = new Diagnostic(Code.MGS2002, message, c.path().toString(), Operation.WRITE, Layer.AUDIT, "audit",
                Map.of()).withDetail(DetailKey.CHANGE, c.verb()).withDetail(DetailKey.ENTRY, c.entry())
                .withDetail(DetailKey.RESTORED, Boolean.toString(notDone.isEmpty()));
        return lease.naming(ControlFileAudit.withQuarantine(d, o));
    }

    private Diagnostic unauditedDiagnostic(Path p) {
        Narrowing.Narrowed lease = region(p).orElseThrow().lease();
        String message = "write denied: " + p + " cannot be audited against the write_paths of job " + lease.job().id()
                + " (it cannot be listed or read, or lies deeper than " + MAX_DEPTH + " directories), so what the run"
                + " wrote beneath it outside them cannot be ruled out; nothing there was compared or restored."
                + " Inspect and remove it";
        return lease.naming(new Diagnostic(Code.MGS2002, message, p.toString(), Operation.WRITE, Layer.AUDIT, "audit",
                Map.of()).withDetail(DetailKey.CHANGE, "unaudited").withDetail(DetailKey.RESTORED, "false"));
    }
}
