/**
 * The core: {@link dev.magus.orchestrator.Orchestrator} runs a {@link dev.magus.orchestrator.run.RunRequest}
 * and hands back a {@link dev.magus.orchestrator.run.Run}. The run itself is
 * {@link dev.magus.orchestrator.pipeline}.
 */
package dev.magus.orchestrator;
