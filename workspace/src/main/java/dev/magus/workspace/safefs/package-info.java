/**
 * Changing a tree relative to directories held open, never through a link a concurrent writer
 * planted: what the audit and the quarantine write into a workspace a confined run could reach.
 * Internal to this module.
 */
package dev.magus.workspace.safefs;
