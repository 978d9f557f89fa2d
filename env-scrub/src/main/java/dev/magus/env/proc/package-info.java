/** Withholding magus's proc-socket pointers from children, and re-injecting them for a recursive magus. */
package dev.magus.env.proc;
