#!/usr/bin/env bash
# Where a forwarded run's wall time goes besides CPU: N forwarded `magus run -- true`
# through the native client under `perf sched record`, then per server thread group: CPU, how
# often it was woken, and the run-queue delay after each wake-up (perf sched timehist).
#   bench/server-waits.sh [N]   (default 20; needs perf, a built checkout with the native client)
# The layout of bench/cli-latency.sh: fake HOME/XDG_RUNTIME_DIR/TMPDIR in a temp dir, a workspace
# whose magus.yaml says sandbox.mode: required; the server is stopped at the end.
set -euo pipefail
here="$(cd "${BASH_SOURCE[0]%/*}" && pwd)"
repo="${here%/bench}"
magus="$repo/bin/magus"
client="$repo/cli/target/native/magus-client"
n="${1:-20}"
command -v perf >/dev/null || { echo "perf not installed" >&2; exit 2; }
[[ -x "$client" ]] || { echo "no native client: build with a C compiler present" >&2; exit 2; }
work="$(mktemp -d "${TMPDIR:-/tmp}/magus-waits-XXXXXX")"
export HOME="$work/home" XDG_RUNTIME_DIR="$work/run" TMPDIR="$work/tmp"
unset XDG_CACHE_HOME XDG_STATE_HOME MAGUS_SANDBOX MAGUS_SERVER_ADDRESS MAGUS_PROC_TOKEN
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" "$TMPDIR" "$work/ws"
chmod 700 "$XDG_RUNTIME_DIR"
printf 'sandbox:\n  mode: required\n' > "$work/ws/magus.yaml"
cleanup() { "$magus" server stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
"$magus" server start >/dev/null
pid="$(sed -n 's/.*(pid \([0-9]*\)).*/\1/p' "$XDG_RUNTIME_DIR/magus/server.log" | head -1)"
cd "$work/ws"
for ((i = 0; i < 100; i++)); do "$client" 1 false run -- true 2>/dev/null; done # JIT warm-up
printf '#!/usr/bin/env bash\nt0=$EPOCHREALTIME\nfor ((i = 0; i < %d; i++)); do %q 1 false run -- true 2>/dev/null; done\nt1=$EPOCHREALTIME\necho "$t0 $t1" > %q\n' \
  "$n" "$client" "$work/span" > "$work/runs.sh"
echo "load before: $(cat /proc/loadavg)"
perf sched record -q -o "$work/sched.data" -- bash "$work/runs.sh" >/dev/null 2>&1
echo "load after: $(cat /proc/loadavg)"
awk -v n="$n" '{printf "wall per forwarded run: %.2f ms (%d runs)\n", ($2 - $1) * 1000 / n, n}' "$work/span"
perf sched timehist -i "$work/sched.data" 2>/dev/null | awk -v pid="$pid" -v n="$n" '
  NR > 3 && $0 ~ ("/" pid "\\] ") && $0 !~ /awakened:/ {
    # A thread name may hold a space ("C1 CompilerThread"): the name runs up to "[tid/pid]".
    name = $3; for (i = 4; i <= NF && name !~ ("/" pid "\\]$"); i++) name = name " " $i
    split(name, a, "["); g = a[1]; sub(/-[0-9]+$/, "", g); if (g ~ /^magus-d/) g = "launch (magus-dNNN)"
    run[g] += $NF; sw[g]++; if ($(NF - 1) > 0) { wk[g]++; dl[g] += $(NF - 1) }
    tr += $NF; td += $(NF - 1)
  }
  $3 ~ /^magus-client\[/ && NF >= 6 { cr += $NF }
  END {
    printf "%-22s %9s %9s %12s\n", "server threads", "CPU ms", "wakes", "delay ms"
    for (g in run) printf "%-22s %9.2f %9.1f %12.2f\n", g, run[g] / n, wk[g] / n, dl[g] / n
    printf "%-22s %9.2f %9s %12.2f\n", "server, all threads", tr / n, "", td / n
    printf "%-22s %9.2f\n", "client", cr / n
  }'
