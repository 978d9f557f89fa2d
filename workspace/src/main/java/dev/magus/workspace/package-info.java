/**
 * The workspace as a whole, beyond one run's policy: for now the control-file audit
 * ({@link dev.magus.workspace.audit}), which DESIGN.md gives this module.
 */
package dev.magus.workspace;
