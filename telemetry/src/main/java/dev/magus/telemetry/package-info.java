/**
 * Telemetry fed from the run event stream: Micrometer meters ({@code .meters}), one
 * structured SLF4J line per diagnostic ({@code .log}), NDJSON events ({@code .ndjson}) and
 * the once-per-invocation MGS2005 filter ({@code .dedupe}). Every sink consumes
 * {@link dev.magus.events.RunEvent}s and knows nothing about policies or processes.
 */
package dev.magus.telemetry;
