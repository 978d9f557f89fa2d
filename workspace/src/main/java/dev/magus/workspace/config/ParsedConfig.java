package dev.magus.workspace.config;

import java.util.Objects;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/**
 * A magus.yaml read and parsed once: its {@code sandbox} section, and the document's node tree
 * that the other sections' readers ({@code projects}) walk, so that no reader reads or parses
 * the file again. The tree is only walked, never changed, so one cached value serves
 * concurrent runs.
 *
 * @param config   the sandbox section
 * @param document the root node; empty for an empty document (or a file of only comments)
 */
public record ParsedConfig(WorkspaceConfig config, Optional<Node> document) {
    /** A directory without a magus.yaml. */
    public static final ParsedConfig NONE = new ParsedConfig(WorkspaceConfig.DEFAULT, Optional.empty());

    public ParsedConfig {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(document, "document");
    }
}
