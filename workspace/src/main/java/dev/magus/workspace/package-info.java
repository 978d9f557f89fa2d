/**
 * The workspace as magus keeps it between runs and around them: the state dir
 * ({@link dev.magus.workspace.StateDir}), the job store ({@code jobs}), the lease markers
 * ({@code lease}), and the control-file audit ({@link dev.magus.workspace.audit}).
 */
package dev.magus.workspace;
