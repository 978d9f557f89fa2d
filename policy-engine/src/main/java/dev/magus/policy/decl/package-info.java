/**
 * Sandbox declarations: what a workspace, a spell or a target says a tool needs beyond the
 * core footprint, in one shape for all three layers, and the merge of those layers. Pure
 * values: nothing here reads the host; locations are resolved by the policy builder.
 */
package dev.magus.policy.decl;
