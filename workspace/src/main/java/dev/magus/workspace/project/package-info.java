/**
 * magus.yaml's {@code projects}: registered project directories, the spells each binds, and
 * its targets ({@link dev.magus.workspace.project.Target}); which spells a process gets
 * ({@link dev.magus.workspace.project.SpellChoice}); and the descendant relation between
 * nested projects.
 */
package dev.magus.workspace.project;
