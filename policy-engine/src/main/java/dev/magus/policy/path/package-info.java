/**
 * Kernel-style path resolution: a requested path is walked component by component the way
 * Linux walks it, so the binding layer checks the file the operation would really reach.
 */
package dev.magus.policy.path;
