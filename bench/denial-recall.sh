#!/usr/bin/env bash
# Recall of magus's live denial stream, measured against Landlock's own audit records.
#
#   bench/denial-recall.sh [--out DIR] [--only REGEX] [--modes "infer audit"] [--scenarios FILE]   (or supervise: --supervise)
#
# Runs every scenario of bench/denial-recall/scenarios.txt (or FILE there: added.txt, heldout.txt) under 'bin/magus run' with
# sandbox.mode required, in a workspace beside a fake HOME holding credential files: once
# with inference only (mode infer) and once with --kernel-audit (mode audit). The ground truth
# is read independently of magus by bench/denial-recall/listener.py (its own netlink reader;
# it holds the host's audit switch for the whole bench, through the same shared holders file
# magus uses). Then bench/denial-recall/score.py compares what each run's --events file
# reported with the records of the Landlock domains that run created, and prints recall per
# mode, false positives, wrong attributions and every miss. Needs root (audit), Landlock ABI 7
# (logging after exec) and a built checkout (mvn -B -ntp -q package -DskipTests).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
magus="$repo/bin/magus"
out=""
only="."
modes="infer audit"
scenarios="scenarios.txt"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    --scenarios) scenarios="$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "denial-recall: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ $(id -u) -ne 0 ]]; then
  echo "denial-recall: needs root: the ground truth is the kernel's audit records" >&2
  exit 2
fi
[[ -n "$out" ]] || out="$(mktemp -d "${TMPDIR:-/tmp}/denial-recall.XXXXXX")"
mkdir -p "$out"
root="$(mktemp -d "${TMPDIR:-/tmp}/denial-recall-fixture.XXXXXX")"
H="$root/home"
W="$root/ws"

fixture() {
  rm -rf "$H" "$W"
  mkdir -p "$H/.aws" "$H/.ssh" "$W/tmp" "$W/sub/deep"
  printf 'aws_secret_access_key=AKIAFAKEFAKEFAKEFAKE\n' > "$H/.aws/credentials"
  printf 'FAKE KEY\n' > "$H/.ssh/id_rsa"
  printf '//registry.example/:_authToken=fake\n' > "$H/.npmrc"
  printf 'https://u:fake@example.invalid\n' > "$H/.git-credentials"
  printf '# a shell startup file\n' > "$H/.bashrc"
  printf '#!/bin/sh\necho hi\n' > "$H/tool.sh"; chmod +x "$H/tool.sh"
  printf 'int main(void){return 0;}\n' > "$H/m.c"
  printf 'all:\n\ttrue\n' > "$H/Makefile"
  printf 'sandbox:\n  mode: required\n' > "$W/magus.yaml"
  printf 'int main(void){return 0;}\n' > "$W/m.c"
  printf 'run:\n\t%s\n' "$H/tool.sh" > "$W/Makefile"
  printf '#!/bin/sh\necho y > %s\n' "$H/out" > "$W/w.sh"; chmod +x "$W/w.sh"
  printf '#!/usr/bin/env python3\nopen("%s").read()\n' "$H/.aws/credentials" > "$W/r.py"; chmod +x "$W/r.py"
  seq 30000 -1 1 > "$W/lines.txt"
  printf '#!%s\necho z\n' "$H/tool.sh" > "$W/hb.sh"; chmod +x "$W/hb.sh"
  printf 'out:\n\techo x > %s\n' "$H/mk.out" > "$W/write.mk"
  tar cf "$W/x.tar" -C "$W" m.c
  cat > "$W/J.java" <<'JAVA'
import java.nio.file.*;
public class J {
    public static void main(String[] a) throws Exception {
        switch (a[0]) {
            case "write" -> Files.writeString(Path.of(a[1]), "x");
            case "list" -> { try (var s = Files.list(Path.of(a[1]))) { s.count(); } }
            case "append" -> new java.io.FileWriter(a[1], true).close();
            default -> throw new IllegalArgumentException(a[0]);
        }
    }
}
JAVA
  cat > "$W/R.java" <<'JAVA'
import java.nio.file.*;
public class R {
    public static void main(String[] a) throws Exception {
        switch (a[0]) {
            case "nio" -> Files.readString(Path.of(a[1]));
            case "iow" -> new java.io.FileOutputStream(a[1]).close();
            case "exec" -> new ProcessBuilder(a[1]).start();
            default -> throw new IllegalArgumentException(a[0]);
        }
    }
}
JAVA
}

# The ground truth: every Landlock audit record while the bench runs. An --out used before
# starts empty: its old runs would be scored against records they no longer have.
truth="$out/audit-records.txt"
: > "$truth"
: > "$out/runs.tsv"
python3 "$here/denial-recall/listener.py" "$truth" &
listener=$!
trap 'kill -TERM $listener 2>/dev/null || true; wait $listener 2>/dev/null || true; rm -rf "$root"' EXIT
for _ in $(seq 100); do grep -q READY "$truth" && break; sleep 0.1; done
grep -q READY "$truth" || { echo "denial-recall: the audit listener did not start" >&2; exit 2; }

export PATH="/usr/local/bin:/usr/bin:/bin:$PATH" HOME="$H" LANG=C.UTF-8 XDG_CACHE_HOME="$root/cache" XDG_STATE_HOME="$root/state"
n=0
while IFS= read -r line; do
  [[ "$line" =~ ^[[:space:]]*(#|$) ]] && continue
  name="$(sed -E 's/[[:space:]]*\|.*//' <<<"$line")"
  words="${line#*|}"
  [[ "$name" =~ $only ]] || continue
  n=$((n + 1))
  id="$(printf '%02d' "$n")"
  for mode in $modes; do
    fixture
    eval "argv=($words)"
    flags=()
    [[ "$mode" == audit ]] && flags=(--kernel-audit)
    [[ "$mode" == supervise ]] && flags=(--supervise)
    dir="$out/$mode"
    mkdir -p "$dir"
    start=$(date +%s.%N)
    (cd "$W" && exec "$magus" run "${flags[@]}" --events "$dir/$id.ndjson" -- "${argv[@]}" \
      </dev/null >"$dir/$id.out" 2>"$dir/$id.err") &
    pid=$!
    wait "$pid" && status=0 || status=$?
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$mode" "$pid" "$status" "$name" "$(date +%s.%N)" >> "$out/runs.tsv"
    # The names the records use for this run's fixture (rebuilt each run, same paths).
  done
  printf '.' >&2
done < "$here/denial-recall/$scenarios"
echo >&2
sleep 1
kill -TERM $listener; wait $listener || true
trap 'rm -rf "$root"' EXIT
python3 "$here/denial-recall/score.py" "$out" "$H" "$W" | tee "$out/report.txt"
