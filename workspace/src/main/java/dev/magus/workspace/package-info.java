/**
 * The workspace as magus keeps it between runs: the state dir ({@link dev.magus.workspace.StateDir}),
 * the job store ({@code jobs}) and the lease markers ({@code lease}).
 */
package dev.magus.workspace;
