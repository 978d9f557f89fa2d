package dev.magus.policy.git;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A config key as git compares them: section and key ignoring case, the subsection of
 * {@code [remote "origin"]} exactly as written (that of the legacy {@code [remote.origin]}
 * form lower-cased, as git does).
 */
public record ConfigKey(String section, Optional<String> subsection, String name) {
    public ConfigKey {
        Objects.requireNonNull(subsection, "subsection");
        section = section.toLowerCase(Locale.ROOT);
        name = name.toLowerCase(Locale.ROOT);
    }

    public static ConfigKey of(String section, String subsection, String name) {
        return new ConfigKey(section, Optional.ofNullable(subsection), name);
    }

    /** As {@code git config --list} spells it: {@code remote.origin.url}. */
    public String dotted() {
        return section + subsection.map(s -> "." + s).orElse("") + "." + name;
    }

    @Override
    public String toString() {
        return dotted();
    }
}
