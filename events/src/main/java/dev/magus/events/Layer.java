package dev.magus.events;

/**
 * Which enforcement layer produced a diagnostic. {@code BINDING} is magus's own check
 * before it touches a path or spawns; {@code KERNEL} is a refusal by Landlock seen in a
 * confined child; {@code POLICY} is everything decided while building the run (settings,
 * declarations, modes, the environment).
 */
public enum Layer {
    BINDING, KERNEL, POLICY;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
