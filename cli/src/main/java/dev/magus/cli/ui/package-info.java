/**
 * The live terminal view of {@code magus run --ui}: a status area at the bottom of the
 * terminal (command, elapsed time, counters per code, the latest denials and the YAML that
 * would allow each) while the child's output scrolls above it, and a summary at the end.
 *
 * <p>{@link dev.magus.cli.ui.ViewReducer} turns events into a
 * {@link dev.magus.cli.ui.ViewState} and knows nothing of terminals;
 * {@link dev.magus.cli.ui.ViewText} turns a state into styled lines;
 * {@link dev.magus.cli.ui.LiveView} is the only class that touches the terminal
 * (JLine's {@code Status}).
 */
package dev.magus.cli.ui;
