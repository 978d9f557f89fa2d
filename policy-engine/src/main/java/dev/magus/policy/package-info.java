/**
 * The policy engine: a run's {@link dev.magus.policy.Policy} built by
 * {@link dev.magus.policy.PolicyBuilder} from the workspace root, the {@link dev.magus.policy.HostFacts}
 * and the merged declarations, and the binding-layer check
 * ({@link dev.magus.policy.PolicyOrOff#check}) that answers every access with a
 * {@link dev.magus.policy.Verdict}; {@link dev.magus.policy.PolicyChecker} is the same check with
 * memory, for one run (a caching resolver and a verdict cache, invalidated when the filesystem
 * changes under a checked path). The sandbox being off is {@link dev.magus.policy.PolicyOrOff.Off}.
 * Sub-packages hold the pieces: {@code mode}, {@code path} (kernel-style resolution),
 * {@code fs} (bits, rules, the containment index), {@code control} (control files) and
 * {@code decl} (declarations and the layer merge).
 */
package dev.magus.policy;
