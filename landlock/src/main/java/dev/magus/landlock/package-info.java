/**
 * The kernel layer: Landlock confinement of the children magus starts (magus itself is never
 * confined). {@link dev.magus.landlock.abi}: the host's ABI and the decision from mode and ABI;
 * {@link dev.magus.landlock.compile}: a policy compiled into a kernel ruleset;
 * {@link dev.magus.landlock.launch}: {@code Confinement.prepare} then {@code Launcher.get().spawn}
 * give a {@code Child}; {@link dev.magus.landlock.sys}: the native calls behind {@code Syscalls}
 * (JNA, or unsupported with a reason), used only by the packages above.
 */
package dev.magus.landlock;
