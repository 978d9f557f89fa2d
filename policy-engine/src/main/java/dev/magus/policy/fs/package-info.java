/** Filesystem access bits, rules and the containment index. */
package dev.magus.policy.fs;
