/**
 * The workspace a run opens ({@link dev.magus.workspace.config.Workspace}: its root, its
 * {@code magus.yaml}, projects and spells) and the file's {@code sandbox} section, read with
 * snakeyaml's SafeConstructor node tree so that every error names the file, line and column.
 * The other top-level sections are read by their own packages, from the same parse.
 */
package dev.magus.workspace.config;
