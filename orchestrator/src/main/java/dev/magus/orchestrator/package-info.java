/** See DESIGN.md: the orchestrator module. */
package dev.magus.orchestrator;
