package dev.magus.events;

/** The access a diagnostic is about; {@code NONE} for codes that concern no single access. */
public enum Operation {
    READ, WRITE, EXEC, NONE;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
