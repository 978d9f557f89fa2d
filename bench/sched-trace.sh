#!/usr/bin/env bash
# Where a spawn's time goes between threads and CPUs (bench/README.md, "Where the time goes"):
# records the kernel's scheduler events during a short spawn comparison and summarises them.
#   sudo bench/sched-trace.sh [--rounds 100] [--warmup 20]     (root: tracefs)
# Leaves the raw trace in ${SCHED_TRACE_OUT:-/tmp/magus-sched-trace.txt}.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/benchmarks.jar"
out="${SCHED_TRACE_OUT:-/tmp/magus-sched-trace.txt}"
if [[ $(id -u) -ne 0 ]]; then
  echo "sched-trace.sh: needs root (it records scheduler events through tracefs)" >&2
  exit 2
fi
if [[ ! -f "$jar" ]]; then
  # Not built here: as root, Maven would use root's repository and leave root-owned files.
  echo "sched-trace.sh: $jar is missing; build it first, as yourself: mvn -o -q -B -pl bench -am package -DskipTests" >&2
  exit 2
fi
tracing=/sys/kernel/tracing
if [[ ! -e "$tracing/trace" ]]; then
  mount -t tracefs nodev "$tracing"
fi
rounds=(--rounds 100 --warmup 20)
[[ $# -gt 0 ]] && rounds=("$@")
old_events="$(cat "$tracing/set_event")"
old_on="$(cat "$tracing/tracing_on")"
# "1408", "7 (expanded: 1408)" before the buffer was first used, or "X" when CPUs differ.
old_size="$(cat "$tracing/buffer_size_kb")"
old_size="${old_size%% *}"
restore() {
  # Every step, even when one fails: never leave tracing half put back.
  set +e
  echo 0 > "$tracing/tracing_on"
  echo "$old_events" > "$tracing/set_event"
  [[ "$old_size" =~ ^[0-9]+$ ]] && echo "$old_size" > "$tracing/buffer_size_kb"
  echo "$old_on" > "$tracing/tracing_on"
}
trap restore EXIT
echo 0 > "$tracing/tracing_on"
echo 16384 > "$tracing/buffer_size_kb"
echo 'sched:sched_switch sched:sched_waking sched:sched_wakeup sched:sched_wakeup_new sched:sched_migrate_task sched:sched_process_exec' > "$tracing/set_event"
echo > "$tracing/trace"
echo 1 > "$tracing/tracing_on"
# The jar is there (checked above), so spawn-compare.sh only runs it, with $JAVA and, unless
# SPAWN_COMPARE_JAVA_OPTS says otherwise, the same 256 MB heap as before.
"$here/spawn-compare.sh" "${rounds[@]}"
echo 0 > "$tracing/tracing_on"
cp "$tracing/trace" "$out"
echo
echo "scheduler trace: $out ($(wc -l < "$out") lines)"
"${JAVA:-java}" -cp "$jar" dev.magus.bench.spawn.SchedTrace "$out"
