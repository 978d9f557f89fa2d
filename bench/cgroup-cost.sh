#!/usr/bin/env bash
# What a run's own cgroup costs (bench/README.md): the confined launcher's spawn of /bin/true
# with and without a cgroup of its own (made, entered, ended, removed), interleaved in one JVM.
# Needs root or a delegated cgroup v2 subtree; says so and measures nothing otherwise.
#   bench/cgroup-cost.sh [--rounds 300] [--warmup 50] [--seed 1]
# Builds bench/target/benchmarks.jar first when it is missing (offline Maven build of bench and
# the modules it measures; never installs anything).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/benchmarks.jar"
if [[ ! -f "$jar" ]]; then
  echo "building $jar ..." >&2
  (cd "$here/.." && mvn -o -q -B -pl bench -am package -DskipTests)
fi
exec "${JAVA:-java}" ${CGROUP_COST_JAVA_OPTS:--Xms256m -Xmx256m} -cp "$jar" dev.magus.bench.spawn.CgroupCost "$@"
