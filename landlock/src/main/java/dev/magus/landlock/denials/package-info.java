/**
 * Kernel-layer denials of a confined child as diagnostics: inferred from what the child
 * prints ({@code .infer}), read exactly from Landlock's audit records ({@code .audit}), and
 * merged so that one denial is reported once.
 */
package dev.magus.landlock.denials;
