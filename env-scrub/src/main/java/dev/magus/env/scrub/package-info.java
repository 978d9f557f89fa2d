/** The allowlist filter over the host environment: baseline plus passthrough, nothing else. */
package dev.magus.env.scrub;
