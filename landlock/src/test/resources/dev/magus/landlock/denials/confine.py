#!/usr/bin/env python3
"""Test-only Landlock confinement: grant the listed paths, restrict self, exec argv.

Usage: confine.py [--r PATH]... [--rx PATH]... [--rw PATH]... [--rwx PATH]... -- CMD ARG...
       confine.py --abi      (prints the Landlock ABI version, 0 when unavailable)

The project's own launcher is built elsewhere; this stands in for it so that the tests of
the denial sources see what a real confined child prints and what the kernel audits. Paths
that do not exist are skipped, as the launcher does. With ABI >= 7 the domain is restricted
with LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON, without which denials after execve are never
audited.
"""
import ctypes
import os
import struct
import sys

SYS_CREATE, SYS_ADD_RULE, SYS_RESTRICT = 444, 445, 446
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1, 2, 4, 8
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG = 16, 32, 64, 128, 256
MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM, REFER, TRUNCATE, IOCTL_DEV = (
    512, 1024, 2048, 4096, 8192, 16384, 32768)
WRITES = (WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK
          | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM)
FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
LOG_NEW_EXEC_ON = 2

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def fail(what):
    err = ctypes.get_errno()
    sys.stderr.write("confine.py: %s: %s\n" % (what, os.strerror(err)))
    sys.exit(111)


def main(argv):
    if argv == ["--abi"]:
        print(max(0, libc.syscall(SYS_CREATE, None, 0, 1)))
        return
    grants = []
    i = 0
    while i < len(argv) and argv[i] != "--":
        flag, path = argv[i], argv[i + 1]
        grants.append((flag.lstrip("-"), path))
        i += 2
    cmd = argv[i + 1:]
    if not cmd:
        sys.stderr.write("confine.py: no command\n")
        sys.exit(111)

    abi = libc.syscall(SYS_CREATE, None, 0, 1)
    if abi < 1:
        fail("landlock unavailable")
    handled = (1 << 13) - 1
    if abi >= 2:
        handled |= REFER
    if abi >= 3:
        handled |= TRUNCATE
    if abi >= 5:
        handled |= IOCTL_DEV
    attr = struct.pack("=QQQ", handled, 0, 0)
    attr_size = 8 if abi < 4 else (16 if abi < 6 else 24)
    buf = ctypes.create_string_buffer(attr[:attr_size], attr_size)
    ruleset = libc.syscall(SYS_CREATE, buf, attr_size, 0)
    if ruleset < 0:
        fail("landlock_create_ruleset")

    for mode, path in grants:
        if not os.path.exists(path):
            continue
        bits = 0
        if "r" in mode:
            bits |= READ_FILE | READ_DIR
        if "w" in mode:
            bits |= WRITES | (REFER | TRUNCATE | IOCTL_DEV)
        if "x" in mode:
            bits |= EXECUTE
        bits &= handled
        if not os.path.isdir(path):
            bits &= FILE_ONLY
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        rule = ctypes.create_string_buffer(struct.pack("=Qi", bits, fd), 12)
        if libc.syscall(SYS_ADD_RULE, ruleset, 1, rule, 0) != 0:
            fail("landlock_add_rule " + path)
        os.close(fd)

    # The command is looked up now: os.execvp would import a module lazily after the restrict,
    # and Python's importer re-lists this script's directory (a shared temp dir) whenever its
    # mtime changed, a read_dir the domain denies and audits before the exec.
    exe = cmd[0]
    if "/" not in exe:
        for d in os.get_exec_path():
            candidate = os.path.join(d, exe)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                exe = candidate
                break
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        fail("prctl")
    # CONFINE_LOG_NEW_EXEC=off leaves the flag out, to show what is lost without it.
    log_new_exec = os.environ.pop("CONFINE_LOG_NEW_EXEC", "on") != "off"
    flags = LOG_NEW_EXEC_ON if abi >= 7 and log_new_exec else 0
    if libc.syscall(SYS_RESTRICT, ruleset, flags) != 0:
        fail("landlock_restrict_self")
    os.close(ruleset)
    sys.stdout.flush()
    os.execv(exe, cmd)


if __name__ == "__main__":
    main(sys.argv[1:])
