/**
 * The confined launcher and the handle on a started child.
 *
 * <p>Build a {@link dev.magus.landlock.launch.Confinement} once per policy
 * ({@code Confinement.prepare(mode, rules, probe)}: MGS2012 is thrown there, {@code warning()}
 * is MGS2005), then call {@code spawn} on a {@link dev.magus.landlock.launch.Spawner}
 * ({@code Launcher.get()}) per child. A {@code Spawn.Started} gives a
 * {@link dev.magus.landlock.launch.Child} (drain its streams, wait or subscribe to
 * {@code exit()}, {@code killGroup}); a {@code Spawn.NotStarted} carries 127/126 and, for a
 * kernel exec denial, MGS2007. Call {@code Launcher.get()} once at start-up from an ordinary
 * thread: it loads the natives and warms the launch path.
 */
package dev.magus.landlock.launch;
