#!/bin/bash
# ab.sh N: N interleaved pairs of `SERVER_CPU_ONLY=1 bench/server-cpu.sh 1000 1000`, the checkout
# $BASE (main, built) then $NEW (this branch, built); prints server ms/run, magus-io, event loop, load.
for i in $(seq 1 "$1"); do
  for w in base new; do
    d=$BASE; [[ $w == new ]] && d=$NEW
    r=$(SERVER_CPU_ONLY=1 "$d/bench/server-cpu.sh" 1000 1000 2>/dev/null)
    echo "$w $(echo "$r" | grep -o 'server (process - client) [0-9.]*' | awk '{print $5}') io=$(echo "$r" | awk '/magus-io/{print $2}') loop=$(echo "$r" | awk '/magus-server-ni/{print $2}') $(echo "$r" | grep -o 'load [0-9.]*')"
  done
done
