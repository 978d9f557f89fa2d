/**
 * The control-file audit: what a confined child did to the files other tools obey later.
 *
 * <p>Landlock has no deny rule inside a grant, so the kernel cannot refuse a write to
 * {@code .git/hooks/pre-commit} or {@code magus.yaml} without refusing the workspace. So magus
 * records the control files before the child starts ({@link ControlFileAudit#before}), compares
 * after the run's process group is gone, reports each change as an MGS2002 with layer
 * {@code audit}, and puts it back (after a quarantine copy) unless {@code sandbox.controlFiles:
 * report}. {@link AuditPlan} decides (pure), {@link Scan} walks and {@link Restorer} writes,
 * both through {@link ControlNames}, which asks the same list the binding layer refuses writes
 * to. Changes are found from directory times, or from fanotify's events ({@link EventPass}).
 * {@link LeaseAudit} holds a leased run to its job's globs with the same parts.
 */
package dev.magus.workspace.audit;
