/**
 * The process's one {@link java.lang.ref.Cleaner} ({@link SharedCleaner}), for the modules
 * above that release what the collector finds unreachable. Exported to those modules only.
 */
package dev.magus.policy.cleaner;
