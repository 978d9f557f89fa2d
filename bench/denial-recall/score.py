#!/usr/bin/env python3
"""Scores bench/denial-recall.sh: magus's reported denials against Landlock's audit records.

    score.py OUT HOME WS

OUT holds runs.tsv (id, mode, magus pid, status, name, end time), audit-records.txt (the
listener's records) and MODE/ID.ndjson (each run's --events). A run's ground truth is the
Landlock access records of the domains whose domain record names that run's magus pid (the
launch thread restricts itself inside magus's JVM, so the domain's pid is magus's), as
distinct (operation, path) pairs: blockers fs.execute -> EXEC; fs.read_file/fs.read_dir ->
READ; every other fs.* (write, truncate, make_*, remove_*, refer, ioctl) -> WRITE; net.* ->
CONNECT. A reported denial is a diagnostic event with layer kernel in the run's events.

Matching, per run: a true denial is recalled by a reported one with the same operation and
the same path, or, when the record names a directory (a name made, removed or renamed in it;
a directory read), a reported path inside that directory. A reported denial that matches no
true one is a false positive when no true denial has its path either, a wrong attribution when
one has it with another operation. Recall counts each true denial once.
"""
import json
import os
import re
import sys
from collections import defaultdict

DIR_RIGHTS = {"fs.make_char", "fs.make_dir", "fs.make_reg", "fs.make_sock", "fs.make_fifo", "fs.make_block",
              "fs.make_sym", "fs.remove_dir", "fs.remove_file", "fs.refer", "fs.read_dir"}


def op_of(blockers):
    ops = set()
    for b in blockers.split(","):
        if b == "fs.execute":
            ops.add("EXEC")
        elif b in ("fs.read_file", "fs.read_dir"):
            ops.add("READ")
        elif b.startswith("fs."):
            ops.add("WRITE")
        elif b.startswith("net."):
            ops.add("CONNECT")
        else:
            ops.add("OTHER:" + b)
    # A record with write and read blockers (open O_RDWR) is a write for the user.
    for o in ("WRITE", "EXEC", "READ", "CONNECT"):
        if o in ops:
            return o
    return sorted(ops)[0]


def field(text, name):
    m = re.search(r'(?:^| )' + name + r'=("([^"]*)"|(\S+))', text)
    if not m:
        return None
    if m.group(2) is not None:
        return m.group(2)
    v = m.group(3)
    if re.fullmatch(r"[0-9A-Fa-f]+", v) and len(v) % 2 == 0 and name in ("path", "exe", "comm") and len(v) > 8:
        try:
            return bytes.fromhex(v).decode("utf-8", "replace")
        except ValueError:
            return v
    return v


def truth(out):
    domain_pid = {}
    access = []
    offs = []
    lost = None
    with open(os.path.join(out, "audit-records.txt")) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("OFF "):
                offs.append(float(line[4:]))
                continue
            if line.startswith("LOST "):
                lost = line
                continue
            if not line[:4].isdigit():
                continue
            mtype, text = line.split(" ", 1)
            if mtype == "1424":
                d, pid = field(text, "domain"), field(text, "pid")
                if d and pid and field(text, "status") == "allocated":
                    domain_pid[d] = pid
            elif mtype == "1423":
                access.append(text)
    by_pid = defaultdict(set)
    for text in access:
        d = field(text, "domain")
        blockers = field(text, "blockers") or ""
        path = field(text, "path")
        pid = domain_pid.get(d)
        if pid is None:
            continue
        if path is None:
            # a network or scope denial: the port or the target, as the record names it
            path = field(text, "opid") or field(text, "dport") or field(text, "sport") or "?"
        by_pid[pid].add((op_of(blockers), path, any(b in DIR_RIGHTS for b in blockers.split(","))))
    return by_pid, offs, lost


def reported(ndjson):
    found = []
    if not os.path.exists(ndjson):
        return found
    with open(ndjson) as f:
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("type") != "diagnostic" or e.get("layer") != "kernel":
                continue
            if e.get("op") == "none":
                # not a denial: MGS2014, the kernel's lost-record count during the run
                found.append(("NOTICE", e.get("code"), e.get("source"), ""))
                continue
            found.append(((e.get("op") or "").upper(), e.get("subject"), e.get("source"),
                          (e.get("details") or {}).get("class", "")))
    return found


def inside(path, directory):
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def main():
    out, home, ws = sys.argv[1], sys.argv[2], sys.argv[3]
    by_pid, offs, lost = truth(out)
    runs = []
    with open(os.path.join(out, "runs.tsv")) as f:
        for line in f:
            rid, mode, pid, status, name, end = line.rstrip("\n").split("\t")
            runs.append((rid, mode, pid, status, name))

    def short(p):
        return p.replace(home, "~").replace(ws, "$W") if p else p

    stats = defaultdict(lambda: defaultdict(int))
    misses = defaultdict(list)
    for rid, mode, pid, status, name in runs:
        true = by_pid.get(pid, set())
        rep = reported(os.path.join(out, mode, rid + ".ndjson"))
        s = stats[mode]
        notices = [r for r in rep if r[0] == "NOTICE"]
        rep = [r for r in rep if r[0] != "NOTICE"]
        if notices:
            s["lost_notices"] += 1
            misses[mode].append("%s %-22s (note) %s: the kernel's lost-record counter grew during the run"
                                % (rid, name, notices[0][1]))
        s["runs"] += 1
        s["true"] += len(true)
        s["reported"] += len(rep)
        for op, path, is_dir in sorted(true):
            hit = [r for r in rep if r[0] == op and r[1] is not None
                   and (r[1] == path or (is_dir and inside(r[1], path)))]
            if hit:
                s["recalled"] += 1
                if any(r[2] in ("audit", "supervisor") for r in hit):
                    s["by_audit"] += 1
            else:
                got = ", ".join("%s %s [%s]" % (r[0], short(r[1]), r[2]) for r in rep) or "nothing"
                misses[mode].append("%s %-22s missed %s %s (reported: %s)" % (rid, name, op, short(path), got))
        for r in rep:
            ok = any(r[0] == op and r[1] is not None and (r[1] == path or (is_dir and inside(r[1], path)))
                     for op, path, is_dir in true)
            if ok:
                continue
            same_path = any(r[1] is not None and (r[1] == path or (is_dir and inside(r[1], path)))
                            for op, path, is_dir in true)
            if same_path:
                s["wrong"] += 1
                misses[mode].append("%s %-22s WRONG op: reported %s %s [%s]" % (rid, name, r[0], short(r[1]), r[2]))
            else:
                s["fp"] += 1
                misses[mode].append("%s %-22s FALSE POSITIVE: %s %s [%s]" % (rid, name, r[0], short(r[1]), r[2]))
    print("denial recall: %d scenario runs; ground truth = Landlock audit records of each run's own domains"
          % len(runs))
    if offs:
        print("WARNING: audit was found off %d times during the bench (ground truth has gaps)" % len(offs))
    if lost:
        print("listener: " + lost)
    print("%-6s %9s %11s %9s %8s %15s %6s %6s" % ("mode", "scenarios", "true denials", "recalled", "recall",
                                                  "from audit recs", "FP", "wrong"))
    for mode in stats:
        s = stats[mode]
        rec = 100.0 * s["recalled"] / s["true"] if s["true"] else 0.0
        aud = 100.0 * s["by_audit"] / s["true"] if s["true"] else 0.0
        print("%-6s %9d %11d %9d %7.1f%% %14.1f%% %6d %6d" % (mode, s["runs"], s["true"], s["recalled"], rec, aud,
                                                           s["fp"], s["wrong"]))
    for mode in stats:
        if stats[mode]["lost_notices"]:
            print("%s: %d runs said records were lost (MGS2014; the counter is the host's, any process's"
                  " records count)" % (mode, stats[mode]["lost_notices"]))
    for mode in stats:
        print("\n%s: misses, false positives, wrong attributions (%d)" % (mode, len(misses[mode])))
        for m in misses[mode]:
            print("  " + m)


if __name__ == "__main__":
    main()
