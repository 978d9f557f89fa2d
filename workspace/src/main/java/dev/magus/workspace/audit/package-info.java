/**
 * The control-file audit: what a confined child did to the files other tools obey later.
 *
 * <p>Landlock is an allowlist with no deny rule inside a grant, so the kernel cannot refuse a
 * write to {@code .git/hooks/pre-commit} or {@code magus.yaml} without refusing the whole
 * workspace. So magus records the workspace's control files before the child starts
 * ({@link ControlFileAudit#before}), compares after the run's process group is gone
 * ({@link ControlFileAudit.Baseline#after}), reports each created, changed or removed one as
 * an MGS2002 with layer {@code audit}, and puts it back unless the workspace says
 * {@code sandbox.controlFiles: report}.
 *
 * <p>Pure logic and I/O are apart: {@link Node}, {@link Change}, {@link Snapshot} and
 * {@link Comparison} are values and functions on them, tested without a filesystem;
 * {@link Scan} walks, {@link Restorer} writes, both through {@link ControlNames}, which
 * decides what is a control file by asking {@link dev.magus.policy.control.ControlFiles}, the
 * same list the binding layer refuses writes to.
 *
 * <p>What to do about each change is {@link AuditPlan}'s (pure): a repository the run created
 * is kept with its hooks neutralised, a git config is judged key by key
 * ({@link dev.magus.workspace.audit.gitconfig}), the rest is put back. Whatever is removed or
 * put back is kept first in the quarantine ({@code dev.magus.workspace.quarantine}).
 *
 * <p>What changed after the run is found from directory times ({@link Scan#rescan}), or, when
 * a {@link dev.magus.policy.watch.ChangeWatcher} is installed and works (landlock's fanotify
 * one, magus as root), from the kernel's events: {@link EventPass} starts the watch before the
 * baseline walk and drains it after the run, {@link ChangeEvents} maps the events to the
 * directories to list again (pure), and anything the events cannot vouch for falls back to
 * the times ({@link AfterPass} says which way a run went).
 *
 * <p>{@link LeaseAudit} holds a leased run to its job's globs where the kernel granted a whole
 * directory for them, with the same snapshot, comparison, restorer and quarantine.
 */
package dev.magus.workspace.audit;
