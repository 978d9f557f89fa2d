/** Which Landlock ABI the host has, what each ABI enforces, and what a mode makes of it. Pure but for the probe. */
package dev.magus.landlock.abi;
