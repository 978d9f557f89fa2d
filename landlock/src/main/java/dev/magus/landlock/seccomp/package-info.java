/**
 * The seccomp layer beside Landlock, as pure values: which sockets a confined child may open
 * ({@link dev.magus.landlock.seccomp.SocketRules}), that none sets a set-user-ID or set-group-ID
 * mode ({@link dev.magus.landlock.seccomp.SetidModes}), that none pushes input into a terminal
 * ({@link dev.magus.landlock.seccomp.TerminalInjection}), and the classic BPF program that holds them
 * ({@link dev.magus.landlock.seccomp.SocketFilterProgram}), built without touching the kernel.
 * The launcher copies the program into native memory and installs it on the launch thread
 * after {@code no_new_privs}, for every confined child; socket refusals are EACCES, reported as
 * MGS2015, mode and terminal refusals EPERM.
 */
package dev.magus.landlock.seccomp;
