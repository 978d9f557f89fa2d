/**
 * YAML read as a node tree (snakeyaml's SafeConstructor composer only), so that every MGS2004
 * names the file, line and column of the key or value at fault: {@link dev.magus.workspace.yaml.YamlFile}
 * composes and walks, {@link dev.magus.workspace.yaml.DeclNodes} reads a {@code sandbox} declaration.
 */
package dev.magus.workspace.yaml;
