#!/usr/bin/env bash
# The CLI-latency table of bench/README.md: hyperfine -N, side by side in one run,
#   a trivial java main with bin/magus's JVM flags,
#   a forwarded run (bin/magus run -- true: a magus server running; bin/magus is the native
#                    client when the build made it, server/src/main/c/magus-client.c),
#   the same forwarded run through the Java fast client (MAGUS_CLIENT=java), when the native one is built,
#   a direct run   (bin/magus run --local -- true: the full command line, in one process),
#   bwrap --ro-bind / / true when bubblewrap is installed,
#   and a minimal C Landlock launcher (bench/landlock-true.c: read+exec of /, then exec true),
#   built here when a C compiler is present.
#   bench/cli-latency.sh [--runs N] [--export-markdown FILE]   (more hyperfine options)
# Needs a built checkout (mvn -B -ntp -q package -DskipTests). A fake HOME and runtime dir in a
# temp dir; the workspace's magus.yaml says sandbox.mode: required. The server is stopped at the end.
# A hundred forwarded runs come first, so the server is timed warm (CLI_LATENCY_COLD=1: not).
set -euo pipefail
here="$(cd "${BASH_SOURCE[0]%/*}" && pwd)"
repo="${here%/bench}"
magus="$repo/bin/magus"
command -v hyperfine >/dev/null || { echo "hyperfine not installed (apt-get install hyperfine)" >&2; exit 2; }
work="$(mktemp -d "${TMPDIR:-/tmp}/magus-latency-XXXXXX")"
export HOME="$work/home" XDG_RUNTIME_DIR="$work/run" TMPDIR="$work/tmp"
unset XDG_CACHE_HOME XDG_STATE_HOME MAGUS_SANDBOX MAGUS_SERVER_ADDRESS MAGUS_PROC_TOKEN
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" "$TMPDIR" "$work/ws" "$work/trivial"
chmod 700 "$XDG_RUNTIME_DIR"
printf 'sandbox:\n  mode: required\n' > "$work/ws/magus.yaml"
printf 'public class Trivial { public static void main(String[] a) { } }\n' > "$work/trivial/Trivial.java"
javac -d "$work/trivial" "$work/trivial/Trivial.java"
cleanup() { "$magus" server stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
"$magus" server start
cd "$work/ws"
flags="-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=3 -XX:CICompilerCount=1 -XX:-UseDynamicNumberOfCompilerThreads -XX:-UsePerfData -Xshare:auto"
commands=(-n "trivial java main" "java $flags -cp $work/trivial Trivial"
          -n "forwarded: magus run -- true" "$magus run -- true"
          -n "direct: magus run --local -- true" "$magus run --local -- true")
client="$repo/cli/target/native/magus-client"
if [[ -x "$client" ]]; then
  commands+=(-n "forwarded, Java fast client: MAGUS_CLIENT=java magus run -- true" "env MAGUS_CLIENT=java $magus run -- true")
  # The native client under its own name, given a fallback ('false', never reached here): bin/magus is the same
  # binary where the build compiled it, so the two rows differ only by the noise.
  commands+=(-n "forwarded, native client alone: magus-client 1 false run -- true" "$client 1 false run -- true")
  # The same without the descriptor exchange (the server's answer, then the client's stdin by
  # SCM_RIGHTS): the difference between the two rows is its cost.
  commands+=(-n "forwarded, native client alone, no stdin: magus-client 1 false run --no-stdin -- true" "$client 1 false run --no-stdin -- true")
fi
if command -v bwrap >/dev/null; then
  commands+=(-n "bwrap --ro-bind / / true" "bwrap --ro-bind / / --dev /dev --proc /proc true")
fi
if command -v cc >/dev/null && cc -O2 -o "$work/landlock-true" "$here/landlock-true.c"; then
  commands+=(-n "C Landlock launcher: landlock-true true" "$work/landlock-true true")
fi
# The server as it is after its first hundred runs (its JIT has compiled what a run runs); a new
# server's first runs cost more (bench/README.md, "The server"). CLI_LATENCY_COLD=1 skips this.
if [[ -z "${CLI_LATENCY_COLD:-}" ]]; then
  for _ in $(seq 100); do "$magus" run -- true >/dev/null 2>&1; done
fi
echo "load before: $(cat /proc/loadavg)"
hyperfine -N --warmup 5 "$@" "${commands[@]}"
echo "load after: $(cat /proc/loadavg)"
echo "nproc: $(nproc)"
