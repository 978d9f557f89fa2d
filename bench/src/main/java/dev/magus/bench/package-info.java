/** See DESIGN.md: the bench module. */
package dev.magus.bench;
