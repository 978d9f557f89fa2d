/**
 * {@code magus run --ask}: the person at the controlling terminal decides about an access the
 * policy refused while the child waits ({@link dev.magus.cli.ask.TerminalApprover}).
 */
package dev.magus.cli.ask;
