#!/bin/sh
# The supervisor's cost (magus run --supervise): the latency it adds to each intercepted call,
# and a walk of a tree of N files (find, tar c), supervised against not. Runs the repository's
# bin/magus (build it first: mvn -o -q -B package -DskipTests) in a throw-away HOME, mode required.
#
#   bench/supervise-cost.sh [FILES] [OPENS] [ROUNDS]     defaults: 50000 20000 3
set -eu
FILES=${1:-50000}
OPENS=${2:-20000}
ROUNDS=${3:-3}
REPO=$(cd "$(dirname "$0")/.." && pwd)
MAGUS="$REPO/bin/magus"
PY=/usr/bin/python3
HOME=$(mktemp -d)
export HOME
trap 'rm -rf "$HOME"' EXIT
WS="$HOME/ws"
mkdir -p "$WS"
printf 'sandbox:\n  mode: required\n' > "$WS/magus.yaml"
cd "$WS"
"$MAGUS" trust magus.yaml >/dev/null 2>&1 || true
# The tree: FILES small files, 100 per directory.
"$PY" - "$FILES" <<'PYEOF'
import os, sys
n = int(sys.argv[1])
for i in range(n):
    d = "tree/d%03d/e%03d" % (i // 10000, (i // 100) % 100)
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    with open("%s/f%05d.txt" % (d, i), "w") as f:
        f.write("x" * 64)
PYEOF
cat > opens.py <<'PYEOF'
import os, sys, time
n = int(sys.argv[1])
lat = []
for _ in range(n):
    t = time.perf_counter_ns()
    fd = os.open("magus.yaml", os.O_RDONLY)
    lat.append(time.perf_counter_ns() - t)
    os.close(fd)
lat.sort()
print("open median_us=%.1f p99_us=%.1f" % (lat[n // 2] / 1000, lat[n * 99 // 100] / 1000))
PYEOF
cat > walk.sh <<'SHEOF'
t0=$(date +%s%N); find tree -type f | wc -l > /dev/null; t1=$(date +%s%N)
tar cf - tree | cat > /dev/null; t2=$(date +%s%N)
echo "find_ms=$(( (t1 - t0) / 1000000 )) tar_ms=$(( (t2 - t1) / 1000000 ))"
SHEOF
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); files=$FILES opens=$OPENS rounds=$ROUNDS"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for mode in plain supervised; do
        flag=""
        [ "$mode" = supervised ] && flag="--supervise"
        printf '%s round %s: ' "$mode" "$r"
        "$MAGUS" run --local -q $flag -- "$PY" opens.py "$OPENS" | tr '\n' ' '
        "$MAGUS" run --local -q $flag -- sh walk.sh
    done
    r=$((r + 1))
done
