/** See DESIGN.md: the landlock module. */
package dev.magus.landlock;
