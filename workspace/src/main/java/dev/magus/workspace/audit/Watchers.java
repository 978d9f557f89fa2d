package dev.magus.workspace.audit;

import dev.magus.policy.watch.ChangeWatcher;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The installed {@link ChangeWatcher} (landlock's fanotify one), if any, unless switched off
 * with the system property {@value #PROPERTY}{@code =off} (read at every run, so tests and
 * benchmarks can compare both ways).
 */
public final class Watchers {
    /** {@code -Dmagus.audit.events=off}: the audit stamps every directory after the run, as without a watcher. */
    public static final String PROPERTY = "magus.audit.events";

    private Watchers() {
    }

    private static final class Installed {
        static final Optional<ChangeWatcher> WATCHER = ServiceLoader.load(ChangeWatcher.class,
                Watchers.class.getClassLoader()).stream().map(ServiceLoader.Provider::get)
                .filter(ChangeWatcher::available).findFirst();
    }

    /** The watcher the audit uses now: empty when none is installed or the property says off. */
    public static Optional<ChangeWatcher> installed() {
        if ("off".equals(System.getProperty(PROPERTY))) {
            return Optional.empty();
        }
        return Installed.WATCHER;
    }
}
