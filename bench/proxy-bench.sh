#!/usr/bin/env bash
# The network proxy against a direct connection on loopback (ProxyBench, bench/README.md), run so
# that the spread is visible: several forks, sample mode (every operation timed, percentiles
# reported), the load average before and after written beside the results.
#   bench/proxy-bench.sh [--forks 3] [--iterations 5]
# Writes bench/results/proxy/{proxy.txt,proxy.json,load.txt}. Builds bench/target/benchmarks.jar
# first when it is missing (offline Maven build of bench and the modules it measures; never
# installs anything). All traffic stays on 127.0.0.1.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/benchmarks.jar"
forks=3
iterations=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --forks) forks="$2"; shift 2 ;;
    --iterations) iterations="$2"; shift 2 ;;
    *) echo "usage: $0 [--forks N] [--iterations N]" >&2; exit 2 ;;
  esac
done
if [[ ! -f "$jar" ]]; then
  echo "building $jar ..." >&2
  (cd "$here/.." && mvn -o -q -B -pl bench -am package -DskipTests)
fi
out="$here/results/proxy"
mkdir -p "$out"
{ echo "before: $(cat /proc/loadavg) on $(nproc) CPUs"; } > "$out/load.txt"
"${JAVA:-java}" -jar "$jar" ProxyBench -f "$forks" -wi 3 -w 1s -i "$iterations" -r 1s -bm sample -tu us \
  -rf json -rff "$out/proxy.json" | tee "$out/proxy.txt"
{ echo "after: $(cat /proc/loadavg) on $(nproc) CPUs"; } >> "$out/load.txt"
