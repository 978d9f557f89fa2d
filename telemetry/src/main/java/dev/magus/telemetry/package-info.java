/** See DESIGN.md: the telemetry module. */
package dev.magus.telemetry;
