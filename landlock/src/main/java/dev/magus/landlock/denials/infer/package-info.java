/**
 * Source 1: kernel denials inferred from a confined child's output lines, unprivileged and
 * always on. The parser is pure text work; {@link dev.magus.landlock.denials.infer.KernelDenials}
 * confirms each candidate against the run's policy so that nothing is invented.
 */
package dev.magus.landlock.denials.infer;
