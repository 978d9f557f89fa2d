#!/usr/bin/env python3
"""Ground truth for bench/denial-recall.sh: Landlock's own audit records, read independently.

Written apart from magus (no magus class is used): it subscribes to the audit read-log
multicast group (NETLINK_AUDIT, group 1; root or CAP_AUDIT_READ) and writes every Landlock
record (types 1423 LANDLOCK_ACCESS and 1424 LANDLOCK_DOMAIN) it receives, one per line:
    <type> <text>
to the file named by its first argument. While it runs it holds the host's audit switch the
way magus documents it (README, "With --kernel-audit"): an exclusive flock of
<share>/audit.lock, the holders in <share>/audit.holders (first line "restore ...", then
"<pid> <start time>" per holder), so a magus run that ends does not switch audit off under it,
and the last holder puts back what the first found. It also checks the switch every 100 ms and
writes "OFF <time>" when it finds audit off (the ground truth then has a gap).
It stops on SIGTERM/SIGINT; it writes "READY" once subscribed, "LOST <n>" with the kernel's
lost counter's growth at the end.
"""
import fcntl
import os
import select
import signal
import socket
import struct
import sys
import time

NETLINK_AUDIT = 9
AUDIT_GET = 1000
AUDIT_SET = 1001
NLMSG_ERROR = 2
NLM_F_REQUEST = 1
NLM_F_ACK = 4
STATUS_ENABLED = 1
STATUS_BACKLOG = 4
LANDLOCK_TYPES = (1423, 1424)
BACKLOG = 8192


def request(sock, mtype, flags, payload, seq):
    hdr = struct.pack("=IHHII", 16 + len(payload), mtype, flags, seq, 0)
    sock.send(hdr + payload)


def status(ctl):
    request(ctl, AUDIT_GET, NLM_F_REQUEST, b"", 1)
    for _ in range(16):
        data = ctl.recv(65536)
        off = 0
        while off + 16 <= len(data):
            ln, mtype = struct.unpack_from("=IH", data, off)
            if mtype == AUDIT_GET:
                mask, enabled, failure, pid, rate, backlog_limit, lost = struct.unpack_from("=7I", data, off + 16)
                return enabled, backlog_limit, lost
            if mtype == NLMSG_ERROR and struct.unpack_from("=i", data, off + 16)[0] != 0:
                raise OSError("AUDIT_GET refused")
            off += (ln + 3) & ~3
    raise OSError("no reply to AUDIT_GET")


def audit_set(ctl, mask, enabled=0, backlog=0):
    payload = struct.pack("=10I", mask, enabled, 0, 0, 0, backlog, 0, 0, 0, 0)
    request(ctl, AUDIT_SET, NLM_F_REQUEST | NLM_F_ACK, payload, 2)
    for _ in range(16):
        data = ctl.recv(65536)
        if struct.unpack_from("=H", data, 4)[0] == NLMSG_ERROR:
            err = struct.unpack_from("=i", data, 16)[0]
            if err != 0:
                raise OSError(-err, "AUDIT_SET refused")
            return
    raise OSError("no acknowledgement of AUDIT_SET")


def me():
    with open("/proc/self/stat") as f:
        stat = f.read()
    return "%d %s" % (os.getpid(), stat[stat.rindex(")") + 2:].split(" ")[19])


def alive(line):
    try:
        pid = int(line.split(" ")[0])
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
        return "%d %s" % (pid, stat[stat.rindex(")") + 2:].split(" ")[19]) == line
    except (OSError, ValueError, IndexError):
        return False


def holders(share, ctl, join):
    """Joins (join=True) or leaves the shared holders, under the lock."""
    os.makedirs(share, mode=0o700, exist_ok=True)
    path = os.path.join(share, "audit.holders")
    with open(os.path.join(share, "audit.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        restore, live = "", []
        if os.path.exists(path):
            with open(path) as f:
                lines = f.read().split("\n")
            if lines and lines[0].startswith("restore "):
                restore = lines[0]
                live = [l for l in lines[1:] if l.strip() and alive(l)]
        self_line = me()
        if join:
            if not live and not restore:
                enabled, backlog, _ = status(ctl)
                if enabled == 0:
                    audit_set(ctl, STATUS_ENABLED, enabled=1)
                    restore = "restore 0 %d" % backlog
                    if backlog < BACKLOG:
                        audit_set(ctl, STATUS_BACKLOG, backlog=BACKLOG)
                else:
                    restore = "restore none"
            live.append(self_line)
        else:
            live = [l for l in live if l != self_line]
            if not live:
                r = restore.split(" ")
                if len(r) == 3:
                    audit_set(ctl, STATUS_ENABLED, enabled=int(r[1]))
                    audit_set(ctl, STATUS_BACKLOG, backlog=int(r[2]))
                restore = ""
        if not restore and not live:
            if os.path.exists(path):
                os.remove(path)
        else:
            with open(path + ".tmp", "w") as f:
                f.write("\n".join([restore] + live) + "\n")
            os.replace(path + ".tmp", path)


def main():
    out = open(sys.argv[1], "a", buffering=1)
    share = sys.argv[2] if len(sys.argv) > 2 else "/run/magus"
    ctl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_AUDIT)
    ctl.bind((0, 0))
    log = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_AUDIT)
    log.bind((0, 1))
    log.setsockopt(socket.SOL_SOCKET, 33, 32 << 20)  # SO_RCVBUFFORCE: a burst waits here
    holders(share, ctl, True)
    lost0 = status(ctl)[2]
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    signal.signal(signal.SIGINT, lambda *a: stop.append(1))
    out.write("READY\n")
    last_check = 0.0
    overruns = 0
    try:
        while not stop:
            r, _, _ = select.select([log], [], [], 0.1)
            if r:
                try:
                    data = log.recv(1 << 20)
                except OSError:
                    overruns += 1
                    continue
                off = 0
                while off + 16 <= len(data):
                    ln, mtype = struct.unpack_from("=IH", data, off)
                    if mtype in LANDLOCK_TYPES:
                        text = data[off + 16:off + ln].rstrip(b"\0\n").decode("utf-8", "replace")
                        out.write("%d %s\n" % (mtype, text))
                    off += (ln + 3) & ~3
            now = time.time()
            if now - last_check > 0.1:
                last_check = now
                if status(ctl)[0] == 0:
                    out.write("OFF %.3f\n" % now)
    finally:
        # Drain what is queued, then let go of the switch.
        log.setblocking(False)
        try:
            while True:
                data = log.recv(1 << 20)
                off = 0
                while off + 16 <= len(data):
                    ln, mtype = struct.unpack_from("=IH", data, off)
                    if mtype in LANDLOCK_TYPES:
                        out.write("%d %s\n" % (mtype, data[off + 16:off + ln].rstrip(b"\0\n").decode("utf-8", "replace")))
                    off += (ln + 3) & ~3
        except (BlockingIOError, OSError):
            pass
        out.write("LOST %d OVERRUNS %d\n" % (status(ctl)[2] - lost0, overruns))
        holders(share, ctl, False)
        out.close()


if __name__ == "__main__":
    main()
