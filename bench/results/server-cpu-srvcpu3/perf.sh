#!/bin/bash
# perf.sh TREE NAME: perf record of the measured window (magus-io share of exception work)
tree=$1; w=$2
SERVER_CPU_ONLY=1 SERVER_CPU_JAVA_OPTS="-XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit" \
  nice -n 5 $tree/bench/server-cpu.sh 1000 1000 > perf-$w.txt 2> perf-$w.err &
bg=$!
while ! grep -q measuring perf-$w.err 2>/dev/null; do sleep 0.2; done
pid=$(grep -o 'pid [0-9]*' perf-$w.err | awk '{print $2}')
perf record -F 999 -g -p $pid -o perf-$w.data > /dev/null 2>&1 &
pp=$!
wait $bg
sleep 0.5
wait $pp
perf script -i perf-$w.data 2>/dev/null > perf-$w.script
