/** The three sandbox modes and how a run arrives at its effective one. */
package dev.magus.policy.mode;
