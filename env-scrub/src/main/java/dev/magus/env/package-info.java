/**
 * The child environment: the passthrough {@link dev.magus.env.Allowlist}, the names magus owns
 * ({@link dev.magus.env.MagusVariables}) and name validation. The sub-packages hold one
 * concept each: {@code platform} (baselines), {@code scrub} (the allowlist filter),
 * {@code overlay} (a run's own changes), {@code proc} (withholding the proc-socket pointers),
 * {@code shim} (MGS2006) and {@code child}, whose {@code ChildEnv.childEnv} is the single path
 * every child environment is built by. Nothing here prints, reads the process environment or
 * calls the kernel.
 */
package dev.magus.env;
