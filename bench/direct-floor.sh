#!/usr/bin/env bash
# Why a direct `magus run --local -- true` cannot reach 3x the trivial JVM on JDK 17 (see
# bench/README.md): the classes such a run loads, loaded alone (no magus code runs), side by side
# with the trivial JVM and the run itself, in one hyperfine -N run, each with bin/magus's JVM
# flags and its own class archive (AppCDS, made here by a first run).
#   bench/direct-floor.sh [more hyperfine options, e.g. --runs 15]
# Needs a built checkout (mvn -B -ntp -q package -DskipTests) and hyperfine.
set -euo pipefail
here="$(cd "${BASH_SOURCE[0]%/*}" && pwd)"
home="$(cd "$here/.." && pwd)"
t="$home/cli/target"
command -v hyperfine >/dev/null || { echo "hyperfine not installed (apt-get install hyperfine)" >&2; exit 2; }
[[ -f "$t/cli.jar" ]] || { echo "not built: run 'mvn -B -ntp -q package -DskipTests' first" >&2; exit 2; }
work="$(mktemp -d "${TMPDIR:-/tmp}/magus-floor-XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ws"
printf 'sandbox:\n  mode: required\n' > "$work/ws/magus.yaml"
cd "$work/ws"
# The class list of one direct run (its own archive made first, as bin/magus does).
"$home/bin/magus" run --local -q -- true 2>/dev/null || true
JAVA_TOOL_OPTIONS="-Xlog:class+load=info:file=$work/load.txt" "$home/bin/magus" run --local -q -- true 2>/dev/null || true
grep -v '__JVM_LookupDefineClass__\|__dynamic_proxy__\|__ClassDefiner__\|\$\$Lambda\|/0x' "$work/load.txt" \
  | awk '$3 == "source:" {print $2}' > "$work/classes.txt"
javac -d "$work/classes" "$here/jdk/ClassFloor.java" "$here/jdk/UnixSocketCost.java"
jar --create --file "$work/floor.jar" -C "$work/classes" .
java="${JAVA:-java}"
arch=x86-64; [[ "$(uname -m)" == aarch64 ]] && arch=aarch64
flags=(-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=3 -XX:CICompilerCount=1 -XX:-UseDynamicNumberOfCompilerThreads -XX:-UsePerfData -Xshare:auto
       -Xlog:cds=off,cds+dynamic=off -Djna.nosys=true -Djna.nounpack=true -Djna.boot.library.path="$t/native/com/sun/jna/linux-$arch")
cp="$(echo $work/floor.jar):$(echo $t/lib/server-*.jar):$(echo $t/lib/events-*.jar):$t/cli.jar:$t/lib/*"
commands=(-n "trivial java main" "$java ${flags[*]} -cp $work/floor.jar UnixSocketCost none")
for step in load init; do
  "$java" "${flags[@]}" -XX:ArchiveClassesAtExit="$work/$step.jsa" -cp "$cp" ClassFloor "$work/classes.txt" "$step"
  commands+=(-n "the direct run's $(wc -l < "$work/classes.txt") classes, $step" "$java ${flags[*]} -XX:SharedArchiveFile=$work/$step.jsa -cp $cp ClassFloor $work/classes.txt $step")
done
commands+=(-n "direct: magus run --local -- true" "$home/bin/magus run --local -q -- true")
"$java" -version 2>&1 | head -1
echo "load before: $(cat /proc/loadavg)"
hyperfine -N --warmup 3 "$@" "${commands[@]}"
echo "load after: $(cat /proc/loadavg)"
