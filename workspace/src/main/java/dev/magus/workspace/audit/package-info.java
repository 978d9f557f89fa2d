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
 */
package dev.magus.workspace.audit;
