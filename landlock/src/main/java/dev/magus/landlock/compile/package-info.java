/** From {@code Rule}s (path and r/w/x bits) to a Landlock ruleset descriptor for one ABI. */
package dev.magus.landlock.compile;
