package dev.magus.workspace.audit.gitconfig;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A config text and what {@link GitConfigParser} read in it, in the text's order. */
public record ParsedConfig(String text, List<ConfigSection> sections, List<ConfigEntry> entries) {
    public ParsedConfig {
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
}
