import json,sys,pickle
d=json.load(open(sys.argv[1]))
ev=d['recording']['events']
ts=sorted(e['values']['startTime'] for e in ev)
cut=ts[int(len(ts)*0.3)]
out=[]
for e in ev:
    v=e['values']
    if v['startTime']<cut: continue
    t=v['sampledThread']['javaName'] or ''
    fr=v['stackTrace']['frames'] if v['stackTrace'] else []
    out.append((t,[f['method']['type']['name'].replace('/','.')+'.'+f['method']['name'] for f in fr]))
pickle.dump(out,open(sys.argv[2],'wb'))
