/**
 * The seam through which the control-file audit learns which directories changed during a run
 * from the kernel's events instead of stamping every directory ({@link ChangeWatcher}); the
 * implementation with native calls is landlock's fanotify one. Pure Java.
 */
package dev.magus.policy.watch;
