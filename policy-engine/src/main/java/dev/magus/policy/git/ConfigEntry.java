package dev.magus.policy.git;

import java.util.Objects;
import java.util.Optional;

/**
 * One key's assignment in a config text, and where it is in that text.
 *
 * @param value      the value as git reads it (quotes, escapes and continuations applied);
 *                   empty for a key without {@code =}, which git reads as true
 * @param start      offset where the entry's text starts: the start of its line, or of the key
 *                   itself when a section header precedes it on the line ({@code inline})
 * @param end        offset just past the entry's last line, its newline included
 * @param header     the header of the section it is in, as written ({@code [remote "origin"]})
 */
public record ConfigEntry(ConfigKey key, Optional<String> value, int start, int end, boolean inline, String header) {
    public ConfigEntry {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(header, "header");
    }
}
