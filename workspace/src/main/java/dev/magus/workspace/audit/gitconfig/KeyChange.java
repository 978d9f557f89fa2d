package dev.magus.workspace.audit.gitconfig;

import dev.magus.policy.git.ConfigKey;

import java.util.Locale;
import java.util.Objects;

/** One key whose values a run changed, and how it was judged. */
public record KeyChange(ConfigKey key, Kind kind, GitConfigKeys.Verdict verdict) {
    public KeyChange {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(verdict, "verdict");
    }

    public enum Kind {
        ADDED, CHANGED, REMOVED;

        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** As a report says it: {@code core.fsmonitor (added, dangerous)}. */
    public String said() {
        return key.dotted() + " (" + kind.word() + ", " + verdict.word() + ")";
    }
}
