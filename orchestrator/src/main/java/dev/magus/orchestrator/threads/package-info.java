/** magus's I/O threads: the pool where everything of a run that blocks runs, one per owner of runs. */
package dev.magus.orchestrator.threads;
