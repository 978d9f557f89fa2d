package dev.magus.events;

/**
 * Which enforcement layer produced a diagnostic. {@code BINDING} is magus's own check
 * before it touches a path or spawns; {@code KERNEL} is a refusal by Landlock seen in a
 * confined child; {@code POLICY} is everything decided while building the run (settings,
 * declarations, modes, the environment); {@code AUDIT} is found after the child's process
 * group is gone, by comparing the workspace with what it was before the run (a control file
 * the child created, changed or removed: the kernel cannot refuse a write inside a grant);
 * {@code PROXY} is the run's network proxy, which refused a host the network policy does not
 * declare (the kernel's TCP rules keep the child from going round it).
 */
public enum Layer {
    BINDING, KERNEL, POLICY, AUDIT, PROXY;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
