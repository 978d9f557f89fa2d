#!/usr/bin/env bash
# The magus server's own CPU per forwarded `true` run (bench/README.md).
#   bench/server-cpu.sh [runs, default 2000] [warm-up runs, default 500]
# Needs a built checkout (mvn -B -ntp -q -pl cli -am package -DskipTests); runs
# bench/server/ServerCpu.java with the JDK's source launcher on bin/magus's class path.
set -euo pipefail
here="${BASH_SOURCE[0]%/*}"
home="$(cd "$here/.." && pwd)"
t="$home/cli/target"
if [[ ! -f "$t/cli.jar" ]]; then
  echo "not built: run 'mvn -B -ntp -q -pl cli -am package -DskipTests' first" >&2
  exit 2
fi
arch=x86-64; [[ "$(uname -m)" == aarch64 ]] && arch=aarch64
# The JIT bin/magus gives the server: the JVM's full tiered JIT (C1, then C2). C2 compiles for
# tens of thousands of runs, so the per-run figure depends on the warm-up: `5000 40000` gives the
# steady state, `10000 1` the average over a new server's first runs, compiles included.
# SERVER_CPU_JAVA_OPTS comes after: "-XX:TieredStopAtLevel=1" measures C1 alone (what every
# other magus command runs with).
exec "${JAVA:-java}" -XX:-UsePerfData ${SERVER_CPU_JAVA_OPTS:-} -XX:+UseSerialGC -Xmx512m -Djna.boot.library.path="$t/native/com/sun/jna/linux-$arch" -Djna.nosys=true \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$t/lib/*" "$here/server/ServerCpu.java" "$@"
