/**
 * The quarantine: what the after-run audit removes or puts back, kept first under the state
 * dir ({@code <state dir>/quarantine/<run id>/}, with a {@link Manifest}), so that nothing a
 * run made is lost to the audit. A confined run can neither read nor write it: the state dir
 * is in no run's grant. {@link Quarantine} keeps, lists, restores and drops; {@link Retention}
 * says how long and how much is kept; {@link Manifest} and {@link Kept} are the pure half.
 */
package dev.magus.workspace.quarantine;
