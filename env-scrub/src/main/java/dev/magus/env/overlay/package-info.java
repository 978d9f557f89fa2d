/** A run's own environment changes ({@code env\set}, <code>env&#92;unset</code>, {@code --env}) as an immutable value. */
package dev.magus.env.overlay;
