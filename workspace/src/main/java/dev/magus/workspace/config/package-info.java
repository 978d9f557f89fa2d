/**
 * The workspace's {@code magus.yaml}: read with snakeyaml's SafeConstructor node tree so that
 * every error names the file, line and column. Only the {@code sandbox} section is
 * interpreted here; other top-level sections belong to other parts of magus.
 */
package dev.magus.workspace.config;
