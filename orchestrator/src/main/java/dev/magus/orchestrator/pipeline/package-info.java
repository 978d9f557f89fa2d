/**
 * The run: one Reactor chain on magus's I/O threads, written once in {@link
 * dev.magus.orchestrator.pipeline.RunStages}, and everything it calls: the stages, each a
 * function building one immutable {@code RunPlan}; the spawn and the child's streams
 * ({@code ChildLaunch}, {@code ChildStreams}); the after-run audits ({@code RunChecks});
 * {@code Refusal}, the chain's error signal; {@code Attempt}, the chain's {@code usingWhen}
 * resource, released however the chain ends; {@link dev.magus.orchestrator.pipeline.RunHandle}
 * and {@link dev.magus.orchestrator.pipeline.RunJournal}, the run's signals and events.
 * Exported to cli and server for the stages one at a time ({@code magus policy}, {@code check},
 * a forwarded run's mode); the rest is public only for {@code Orchestrator}.
 */
package dev.magus.orchestrator.pipeline;
