#!/usr/bin/env bash
# The magus server's own CPU per forwarded `true` run (bench/README.md, issue 15).
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
# The JIT flags bin/magus gives every JVM it starts, the server's included (`magus server start`
# runs bin/magus): C1 only. Without them the JDK's tiered C2 still compiled the pipeline's
# once-per-run methods after 1 000 warm-up runs (their C2 threshold is thousands of calls), 4-7 ms
# of compiler thread per run that a real server never spends. SERVER_CPU_JAVA_OPTS comes after,
# so "-XX:TieredStopAtLevel=4" measures the full tiered JIT.
exec "${JAVA:-java}" -XX:TieredStopAtLevel=1 -XX:-UsePerfData ${SERVER_CPU_JAVA_OPTS:-} -XX:+UseSerialGC -Xmx512m -Djna.boot.library.path="$t/native/com/sun/jna/linux-$arch" -Djna.nosys=true \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$t/lib/*" "$here/server/ServerCpu.java" "$@"
