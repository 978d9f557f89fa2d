#!/usr/bin/env bash
# Side-by-side spawn cost of /bin/true (bench/README.md): plain ProcessBuilder, magus's confined
# launcher, bubblewrap (when installed) and a bare posix_spawn, interleaved in one JVM.
#   bench/spawn-compare.sh [--rounds 300] [--warmup 50] [--seed 1]
# Builds bench/target/benchmarks.jar first when it is missing (offline Maven build of bench and
# the modules it measures; never installs anything).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/benchmarks.jar"
if [[ ! -f "$jar" ]]; then
  echo "building $jar ..." >&2
  (cd "$here/.." && mvn -o -q -B -pl bench -am package -DskipTests)
fi
if ! command -v bwrap >/dev/null 2>&1; then
  echo "bwrap not installed, column c skipped (apt-get install bubblewrap to measure it)" >&2
fi
exec "${JAVA:-java}" ${SPAWN_COMPARE_JAVA_OPTS:--Xms256m -Xmx256m} -cp "$jar" dev.magus.bench.spawn.SpawnCompare "$@"
