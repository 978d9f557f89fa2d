/**
 * Leases: the markers that bind a checkout to a job ({@link dev.magus.workspace.lease.LeaseMarkers}),
 * and the lookup that turns a run's workspace into its narrowing ({@link dev.magus.workspace.lease.LeaseLookup}),
 * failing closed.
 */
package dev.magus.workspace.lease;
