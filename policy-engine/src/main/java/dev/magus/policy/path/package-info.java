/**
 * Kernel-style path resolution: a requested path is walked component by component the way
 * Linux walks it, so the binding layer checks the file the operation would really reach. The
 * walk reads a {@link dev.magus.policy.path.Filesystem} (the real one, or a tree in memory for
 * exact tests); a {@link dev.magus.policy.path.KernelLookup} on the class path lets the kernel
 * itself answer for paths that exist on the real one; the walk defines everything else.
 */
package dev.magus.policy.path;
