/**
 * The kernel layer: Landlock confinement of the children magus starts, while magus itself is
 * never confined.
 *
 * <ul>
 *   <li>{@link dev.magus.landlock.abi}: the host's ABI ({@code LandlockProbe}) and the pure
 *       decision from mode and ABI ({@code Decision}: confine, binding checks only with
 *       MGS2005, or refuse with MGS2012).</li>
 *   <li>{@link dev.magus.landlock.compile}: a policy's rules compiled once into a kernel
 *       ruleset for the ABI ({@code CompiledRuleset}).</li>
 *   <li>{@link dev.magus.landlock.launch}: {@code Confinement.prepare(mode, rules, probe)} then
 *       {@code Launcher.get().spawn(request, confinement)}, giving a {@code Child}.</li>
 *   <li>{@link dev.magus.landlock.sys}: the native calls behind the {@code Syscalls} interface (JNA, or
 *       unsupported with a reason), only used by the packages above.</li>
 * </ul>
 */
package dev.magus.landlock;
