/**
 * The run: one Reactor chain on magus's I/O threads, written once in {@link
 * dev.magus.orchestrator.pipeline.RunStages}, and everything it calls.
 * <ul>
 *   <li>the stages, in the chain's order: {@link dev.magus.orchestrator.pipeline.ConfigStage},
 *       {@code HostStage}, {@link dev.magus.orchestrator.pipeline.PolicyStage},
 *       {@link dev.magus.orchestrator.pipeline.ExecStage}, {@link dev.magus.orchestrator.pipeline.EnvStage},
 *       {@code ProxyStage}, {@link dev.magus.orchestrator.pipeline.ProbeStage}, each a function of
 *       the value before it, together building one immutable {@code RunPlan};
 *       then the spawn and the child's streams ({@code ChildLaunch}, {@code ChildStreams}), and the
 *       after-run audits ({@code RunChecks}, {@code DescendantStage});</li>
 *   <li>{@code Refusal}: a stage's refusal, the chain's error signal, with its diagnostic (or its
 *       shell line) and exit status;</li>
 *   <li>{@code Attempt}: the chain's {@code usingWhen} resource: what the stages acquired and held
 *       back, released however the chain ends (completed, refused, broken, cancelled);</li>
 *   <li>{@link dev.magus.orchestrator.pipeline.RunHandle} and {@link dev.magus.orchestrator.pipeline.RunJournal}:
 *       the run's signals (before the spawn one disposes the chain, no child starts, 128+N; after
 *       it they reach the child's process group) and its events.</li>
 * </ul>
 * Exported to cli and server for the stages one at a time ({@code magus policy}, {@code check},
 * a forwarded run's mode); the rest is public only for {@code Orchestrator}.
 */
package dev.magus.orchestrator.pipeline;
