/** {@code childEnv}: the single path that builds every child's environment, in every mode. */
package dev.magus.env.child;
