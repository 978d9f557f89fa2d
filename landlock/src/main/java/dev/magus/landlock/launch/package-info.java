/**
 * The confined launcher and the handle on a started child.
 *
 * <p>Use: build a {@link dev.magus.landlock.launch.Confinement} once per policy with
 * {@code Confinement.prepare(mode, rules, probe)} (MGS2012 is thrown there; report
 * {@code warning()}, MGS2005, once per top-level invocation), then for each child call
 * {@code spawn(SpawnRequest, Confinement)} on a {@link dev.magus.landlock.launch.Spawner} (the
 * {@link dev.magus.landlock.launch.Launcher}, {@code Launcher.get()}) after the binding layer's exec check.
 * A {@code Spawn.Started} gives a {@link dev.magus.landlock.launch.Child}: drain
 * {@code stdout()}/{@code stderr()} and call {@code waitFor()} on threads that may block, or
 * subscribe to {@code exit()}; cancel with {@code killGroup(signal)}. A {@code Spawn.NotStarted}
 * carries the status (127/126) and, for a kernel exec denial, MGS2007.
 *
 * <p>Call {@code Launcher.get()} once at start-up from an ordinary thread: it loads the natives,
 * starts JNA's helper thread and warms the launch path.
 */
package dev.magus.landlock.launch;
