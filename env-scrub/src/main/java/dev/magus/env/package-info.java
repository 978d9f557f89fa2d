/** The child environment: allowlist, baselines, scrubbing, per-run overlays and proc-socket withholding. */
package dev.magus.env;
