#!/usr/bin/env bash
# The magus server's own CPU per forwarded `true` run (bench/README.md).
#   bench/server-cpu.sh [runs, default 2000] [warm-up runs, default 500]
# Needs a built checkout (mvn -B -ntp -q -pl cli -am package -DskipTests); runs
# bench/server/ServerCpu.java with the JDK's source launcher on bin/magus's class path (the command
# line's jar too: the server parses each run's words with it).
set -euo pipefail
here="${BASH_SOURCE[0]%/*}"
home="$(cd "$here/.." && pwd)"
t="$home/cli/target"
if [[ ! -f "$t/cli.jar" ]]; then
  echo "not built: run 'mvn -B -ntp -q -pl cli -am package -DskipTests' first" >&2
  exit 2
fi
arch=x86-64; [[ "$(uname -m)" == aarch64 ]] && arch=aarch64
# The JIT bin/magus gives the server: C1 alone, a method compiled after a tenth of the JVM's
# default number of calls. `500 1` gives the average over a new server's first 500 runs,
# `2000 5000` a server's later runs. SERVER_CPU_JAVA_OPTS comes after, so it can change that:
# "-XX:TieredStopAtLevel=4 -XX:CompileThresholdScaling=1" measures the JVM's full tiered JIT
# (C1, then C2), which compiles for tens of thousands of runs (`5000 40000` for its steady state).
exec "${JAVA:-java}" -XX:-UsePerfData -XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.1 ${SERVER_CPU_JAVA_OPTS:-} -XX:+UseSerialGC -Xmx512m -Djna.boot.library.path="$t/native/com/sun/jna/linux-$arch" -Djna.nosys=true \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$t/cli.jar:$t/lib/*" "$here/server/ServerCpu.java" "$@"
