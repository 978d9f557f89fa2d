package dev.magus.policy.git;

import java.util.Objects;
import java.util.Optional;

/**
 * One section header in a config text and the stretch it governs: from the start of its line
 * to the start of the next header's line, or the end of the text.
 */
public record ConfigSection(String section, Optional<String> subsection, String header, int start, int end) {
    public ConfigSection {
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(subsection, "subsection");
        Objects.requireNonNull(header, "header");
    }

    public boolean holds(ConfigKey key) {
        return section.equals(key.section()) && subsection.equals(key.subsection());
    }
}
