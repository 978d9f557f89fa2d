/**
 * Lease narrowing, pure: a delegated worker's write grant derived from its job's write_paths
 * ({@link dev.magus.policy.lease.LeaseNarrowing}). No database here: the job store and the lease
 * markers live in the workspace module, which hands a {@link dev.magus.policy.lease.LeaseJob} in.
 */
package dev.magus.policy.lease;
