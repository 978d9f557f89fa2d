#!/bin/bash
# (run from a scratch dir: it writes OUT.jfr, OUT.txt, OUT.err, OUT.json there)
# exc.sh TREE OUT : exceptions thrown during the measured window of SERVER_CPU_ONLY=1 server-cpu.sh 500 500
tree=$1; out=$2
SERVER_CPU_ONLY=1 SERVER_CPU_JAVA_OPTS="-XX:StartFlightRecording=filename=$out.jfr,settings=$(cd "$(dirname "$0")" && pwd)/exc.jfc" \
  nice -n 5 $tree/bench/server-cpu.sh 500 500 > $out.txt 2> >(while IFS= read -r l; do echo "$(date +%s.%N) $l"; done > $out.err)
sleep 1
jfr print --stack-depth 64 --json --events jdk.JavaExceptionThrow $out.jfr > $out.json
python3 - "$out" <<'P'
import json,sys,collections,datetime
out=sys.argv[1]
t0=None
for l in open(out+'.err'):
    if 'measuring' in l: t0=float(l.split()[0])
ev=json.load(open(out+'.json'))['recording']['events']
def ts(e):
    s=e['values']['startTime']
    return datetime.datetime.fromisoformat(s.replace('Z','+00:00')).timestamp()
res=[l for l in open(out+'.txt') if l.startswith('runs ')]
runs=int(res[0].split()[1])
win=[e for e in ev if ts(e)>=t0]
# measured window ends when the result is printed; no memory phase with SERVER_CPU_ONLY
c=collections.Counter()
for e in win:
    fr=e['values']['stackTrace']['frames'] if e['values'].get('stackTrace') else []
    cls=e['values']['thrownClass']['name'] if e['values'].get('thrownClass') else '?'
    site=None
    for f in fr:
        m=f['method']; n=m['type']['name']+'.'+m['name']
        if n.startswith('dev/magus'):
            site=n;break
    c[(cls,site)]+=1
print('window events',len(win),'per run %.2f'%(len(win)/runs), 'runs',runs)
for k,v in c.most_common(25): print('%7.2f'%(v/runs),k)
P
