/**
 * {@code magus learn}'s pure part: which declarations a run's denials call for (safe hints
 * only, attack-like accesses kept apart), and how to add them to a {@code magus.yaml} without
 * touching the rest of its text.
 */
package dev.magus.workspace.learn;
