#!/usr/bin/env python3
"""The kernel's part of a run's own cgroup, step by step (bench/README.md): make a threaded
cgroup under magus's parent, move a thread into it (as a launch thread does before its spawn),
move it back, remove the cgroup. Wall time of each step, median and p90 of --rounds.
Needs root or a delegated cgroup v2 subtree, and magus's parent cgroup (made by any magus run
or `magus probe`).   bench/cgroup-steps.py [--rounds 300]"""
import os, statistics, sys, threading, time

def cgroup2_mount():
    for line in open("/proc/self/mountinfo"):
        head, _, tail = line.partition(" - ")
        if tail.split(" ")[0] == "cgroup2" and head.split(" ")[3] == "/":
            return head.split(" ")[4]
    sys.exit("no cgroup2 hierarchy here")

def own_cgroup():
    for line in open("/proc/self/cgroup"):
        if line.startswith("0::"):
            return line[3:].strip()
    sys.exit("this process is in no cgroup v2")

rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 300
own = os.path.join(cgroup2_mount(), own_cgroup().lstrip("/"))
parent = os.path.join(own, "magus")
if not os.path.isdir(parent):
    sys.exit("no magus parent cgroup at %s: run magus probe first" % parent)
steps = {"mkdir + cgroup.type threaded": [], "thread moves in (cgroup.threads)": [],
         "thread moves back": [], "rmdir": []}

def move(d, out):
    t0 = time.perf_counter(); open(d + "/cgroup.threads", "w").write("0")
    t1 = time.perf_counter(); open(own + "/cgroup.threads", "w").write("0")
    out.extend([t1 - t0, time.perf_counter() - t1])

for i in range(rounds):
    d = os.path.join(parent, "steps-%d-%d" % (os.getpid(), i))
    t0 = time.perf_counter(); os.mkdir(d); open(d + "/cgroup.type", "w").write("threaded")
    t1 = time.perf_counter()
    out = []; th = threading.Thread(target=move, args=(d, out)); th.start(); th.join()
    t2 = time.perf_counter(); os.rmdir(d); t3 = time.perf_counter()
    for name, v in zip(steps, [t1 - t0, out[0], out[1], t3 - t2]):
        steps[name].append(v)
print("| step | median µs | p90 µs |")
print("| --- | ---: | ---: |")
for name, v in steps.items():
    print("| %s | %.0f | %.0f |" % (name, statistics.median(v) * 1e6, sorted(v)[int(len(v) * 0.9)] * 1e6))
