/** MGS2006: version-manager shims left on PATH whose variables the scrub removed. */
package dev.magus.env.shim;
