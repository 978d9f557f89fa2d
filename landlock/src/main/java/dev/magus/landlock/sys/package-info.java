/**
 * The native calls of this module behind one interface, {@link dev.magus.landlock.sys.Syscalls},
 * chosen once per process by {@link dev.magus.landlock.sys.Natives}: glibc and the Landlock
 * system calls through JNA direct mapping on Linux (x86_64 or aarch64, glibc 2.34 or newer), or
 * an unsupported implementation that says why and refuses every call. Also the constants
 * ({@link dev.magus.landlock.sys.LibC}, {@link dev.magus.landlock.sys.Landlock},
 * {@link dev.magus.landlock.sys.Errno}, {@link dev.magus.landlock.sys.Capabilities}), the packed
 * structures, and the kernel's own path resolution offered to the policy engine
 * ({@link dev.magus.landlock.sys.ProcFdLookup}).
 */
package dev.magus.landlock.sys;
