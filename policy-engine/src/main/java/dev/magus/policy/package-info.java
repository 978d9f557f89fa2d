/** The policy engine: modes, paths, rules, declarations and the binding-layer check. */
package dev.magus.policy;
