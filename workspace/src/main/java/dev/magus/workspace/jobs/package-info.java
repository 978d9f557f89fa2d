/**
 * The job store: jobs, their write_paths and trails, in SQLite ({@link dev.magus.workspace.jobs.JobStore}).
 */
package dev.magus.workspace.jobs;
