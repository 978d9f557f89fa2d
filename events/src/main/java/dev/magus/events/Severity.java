package dev.magus.events;

/** How loud a diagnostic is; a log sink maps it onto its own levels. */
public enum Severity {
    ERROR, WARNING, INFO, HINT, DEBUG
}
