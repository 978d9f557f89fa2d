package dev.magus.workspace.audit;

import dev.magus.policy.cleaner.SharedCleaner;
import dev.magus.policy.watch.ChangeWatcher;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The kernel's events of one run, for the audit's after pass: started before the walk that
 * records the baseline (so every change after that walk began is an event), drained once the
 * run's group is gone. {@link #drain} gives the directories to list again, or nothing when the
 * events cannot be trusted ({@link ChangeWatcher.Refused}, {@link ChangeWatcher.Doubt}, a root
 * whose real path cannot be told): then the after pass stamps every directory, as without
 * events. A run that never reaches its after pass (the spawn failed) has its watch closed when
 * the baseline is collected.
 */
final class EventPass {
    private final AtomicReference<ChangeWatcher.Watching> watch;
    private final Map<Path, Path> realRoots;
    private final String refused;
    private final Optional<Cleaner.Cleanable> cleanable;

    private EventPass(ChangeWatcher.Watching watch, Map<Path, Path> realRoots, String refused) {
        this.watch = new AtomicReference<>(watch);
        this.realRoots = Map.copyOf(realRoots);
        this.refused = refused;
        this.cleanable = watch == null ? Optional.empty() : Optional.of(SharedCleaner.CLEANER.register(this, watch::close));
    }

    /** What the after pass is, when it did not use events and why. */
    record Outcome(Optional<Set<Path>> touched, AfterPass pass) {
    }

    /** Starts watching {@code roots} with {@code watcher}, when there is one; closed when this pass is collected undrained. */
    static EventPass start(Optional<ChangeWatcher> watcher, List<Path> roots) {
        if (watcher.isEmpty()) {
            return new EventPass(null, Map.of(), "no change watcher (none installed, or -D" + Watchers.PROPERTY
                    + "=off)");
        }
        Map<Path, Path> real = new LinkedHashMap<>();
        for (Path r : roots) {
            try {
                real.put(r.toRealPath(), r);
            } catch (IOException | RuntimeException e) {
                return new EventPass(null, Map.of(), "the real path of " + r + ": " + e);
            }
        }
        ChangeWatcher.Started s;
        try {
            s = watcher.get().start(List.copyOf(real.keySet()));
        } catch (RuntimeException e) {
            return new EventPass(null, Map.of(), "the watcher failed: " + e);
        }
        if (s instanceof ChangeWatcher.Refused r) {
            return new EventPass(null, Map.of(), r.reason());
        }
        return new EventPass((ChangeWatcher.Watching) s, real, "");
    }

    /** The directories the run's events touch; empty (and why) when the after pass must stamp every directory. Once. */
    Outcome drain() {
        ChangeWatcher.Watching w = watch.getAndSet(null);
        if (w == null) {
            return new Outcome(Optional.empty(), new AfterPass(false, refused.isEmpty() ? "the events were drained before"
                    : refused));
        }
        try {
            ChangeWatcher.Drained d = w.drain();
            if (d instanceof ChangeWatcher.Doubt doubt) {
                return new Outcome(Optional.empty(), new AfterPass(false, doubt.reason()));
            }
            List<ChangeWatcher.Event> events = ((ChangeWatcher.Events) d).events();
            return new Outcome(Optional.of(ChangeEvents.touched(events, realRoots)),
                    new AfterPass(true, events.size() + " events"));
        } catch (RuntimeException e) {
            return new Outcome(Optional.empty(), new AfterPass(false, "the watcher failed: " + e));
        } finally {
            // Runs w.close() once, and never again when this pass is collected.
            cleanable.ifPresent(Cleaner.Cleanable::clean);
        }
    }
}
