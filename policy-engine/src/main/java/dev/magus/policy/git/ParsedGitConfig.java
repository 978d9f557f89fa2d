package dev.magus.policy.git;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A config text and what {@link GitConfigParser} read in it, in the text's order. */
public record ParsedGitConfig(String text, List<ConfigSection> sections, List<ConfigEntry> entries) {
    public ParsedGitConfig {
        sections = List.copyOf(sections);
        entries = List.copyOf(entries);
    }

    /** Each key's values in order (a key git reads as true without {@code =} is an empty value). */
    public Map<ConfigKey, List<Optional<String>>> values() {
        Map<ConfigKey, List<Optional<String>>> out = new LinkedHashMap<>();
        for (ConfigEntry e : entries) {
            out.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e.value());
        }
        out.replaceAll((k, v) -> List.copyOf(v));
        return out;
    }

    /** The last value of {@code key}, as git's "last one wins"; a key without {@code =} reads {@code true}. */
    public Optional<String> last(ConfigKey key) {
        Optional<String> found = Optional.empty();
        for (ConfigEntry e : entries) {
            if (e.key().equals(key)) {
                found = Optional.of(e.value().orElse("true"));
            }
        }
        return found;
    }
}
