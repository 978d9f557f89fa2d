#!/usr/bin/env bash
# Thread CPU per policy build and per ruleset compile of a forwarded run's core policy.
#   bench/policy-cpu.sh [runs, default 2000] [warm-up runs, default 2000]
# Needs a built checkout (mvn -B -ntp -q -pl cli -am package -DskipTests); runs
# bench/server/PolicyCpu.java with the JDK's source launcher on bin/magus's class path, with the
# server's JIT flags (C1 only, as server-cpu.sh).
set -euo pipefail
here="${BASH_SOURCE[0]%/*}"
home="$(cd "$here/.." && pwd)"
t="$home/cli/target"
if [[ ! -f "$t/cli.jar" ]]; then
  echo "not built: run 'mvn -B -ntp -q -pl cli -am package -DskipTests' first" >&2
  exit 2
fi
arch=x86-64; [[ "$(uname -m)" == aarch64 ]] && arch=aarch64
exec "${JAVA:-java}" -XX:TieredStopAtLevel=1 -XX:-UsePerfData ${POLICY_CPU_JAVA_OPTS:-} -XX:+UseSerialGC -Xmx256m \
  -Djna.boot.library.path="$t/native/com/sun/jna/linux-$arch" -Djna.nosys=true \
  -cp "$t/lib/*" "$here/server/PolicyCpu.java" "$@"
