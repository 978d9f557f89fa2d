/**
 * The core: {@link dev.magus.orchestrator.Orchestrator} runs a {@link dev.magus.orchestrator.run.RunRequest}
 * and hands back a {@link dev.magus.orchestrator.run.Run}.
 *
 * <p>Internally a run is a Reactor chain ({@code RunStages}) on magus's I/O threads:
 * <ul>
 *   <li>{@code PlanStages}: the stages, each a function of immutable values (config → private
 *       temp dir and host facts → policy and lease trail → exec target → child environment →
 *       proxy → confinement), together building an immutable {@code RunPlan};</li>
 *   <li>{@code Refusal}: a stage's refusal, the chain's error signal, with its diagnostic (or its
 *       shell line) and exit status;</li>
 *   <li>{@code ChildLaunch}: the plan flat-mapped into the spawn and the child's streams
 *       ({@code ChildStreams}, {@code RunJournal});</li>
 *   <li>{@code Attempt}: the chain's {@code usingWhen} resource: what the stages acquired and held
 *       back, released however the chain ends (completed, refused, broken, cancelled);</li>
 *   <li>{@code RunHandle}: the run's signals: before the spawn one disposes the chain (no child
 *       starts; 128+N), after it they reach the child's process group.</li>
 * </ul>
 */
package dev.magus.orchestrator;
