/**
 * A run's own cgroup v2: where magus may make one, every confined run's processes live in it
 * from their first instruction, and the run's end freezes it, kills what is in it and removes
 * it, so no fork can race the end. {@link dev.magus.orchestrator.contain.CgroupText} reads the
 * kernel's files (pure); {@link dev.magus.orchestrator.contain.Containment} decides, once per
 * process, whether runs are contained so or by the subreaper's freeze-then-kill, and why;
 * {@link dev.magus.orchestrator.contain.RunCgroup} is one run's cgroup;
 * {@link dev.magus.orchestrator.contain.RunCgroups} spawns a run's child into a new one, ends it
 * at the run's end, and sweeps those of a magus that is gone.
 */
package dev.magus.orchestrator.contain;
