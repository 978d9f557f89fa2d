/**
 * glibc and the Landlock system calls through JNA direct mapping: constants, packed structures,
 * and start-up checks that fail fast on a platform or C library the launcher cannot use
 * (Linux on x86_64 or aarch64, glibc 2.34 or newer). Also the kernel's own path resolution
 * offered to the policy engine ({@link dev.magus.landlock.sys.ProcFdLookup}).
 */
package dev.magus.landlock.sys;
