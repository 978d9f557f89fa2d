/**
 * {@code magus init}'s logic, apart from the command: which directories of a tree are projects
 * and which spells each needs, read from the marker files its toolchains leave
 * ({@link Markers}, {@link ProjectDetector}), and the commented magus.yaml that declares them
 * ({@link InitFile}). The walk reads directory listings through a seam, so it is tested on a
 * tree made of values.
 */
package dev.magus.workspace.init;
