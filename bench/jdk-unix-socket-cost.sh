#!/usr/bin/env bash
# Why the Java fast client cannot reach 1.3x the trivial JVM on JDK 17 (bench/README.md):
# what opening one AF_UNIX SocketChannel costs a fresh JVM, step by step, side by side in one
# hyperfine -N run. Each step runs with bin/magus's JVM flags and its own class archive (AppCDS,
# made here by a first run), as the fast client does.
#   bench/jdk-unix-socket-cost.sh [more hyperfine options, e.g. --runs 40]
set -euo pipefail
here="$(cd "${BASH_SOURCE[0]%/*}" && pwd)"
command -v hyperfine >/dev/null || { echo "hyperfine not installed (apt-get install hyperfine)" >&2; exit 2; }
work="$(mktemp -d "${TMPDIR:-/tmp}/magus-unixcost-XXXXXX")"
trap 'rm -rf "$work"' EXIT
javac -d "$work/classes" "$here/jdk/UnixSocketCost.java"
jar --create --file "$work/cost.jar" -C "$work/classes" .
java="${JAVA:-java}"
flags=(-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData -Xshare:auto
       -Djava.nio.channels.spi.SelectorProvider=sun.nio.ch.EPollSelectorProvider)
commands=()
for step in none lambda provider sha1prng socket; do
  "$java" "${flags[@]}" -XX:ArchiveClassesAtExit="$work/$step.jsa" -Xlog:cds=off,cds+dynamic=off -cp "$work/cost.jar" UnixSocketCost "$step"
  commands+=(-n "$step" "$java ${flags[*]} -XX:SharedArchiveFile=$work/$step.jsa -cp $work/cost.jar UnixSocketCost $step")
done
"$java" -version 2>&1 | head -1
echo "load before: $(cat /proc/loadavg)"
hyperfine -N --warmup 5 "$@" "${commands[@]}"
echo "load after: $(cat /proc/loadavg)"
