/** The bench module: how to run each benchmark is in bench/README.md. */
package dev.magus.bench;
