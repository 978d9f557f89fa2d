import pickle,sys,collections
# q.py F.pkl threadprefix target [depth] [nleaves]
evs=pickle.load(open(sys.argv[1],'rb'))
target=sys.argv[3]; depth=int(sys.argv[4]) if len(sys.argv)>4 else 1
n=0; hit=0; callee=collections.Counter(); leaf=collections.Counter()
for t,names in evs:
    if not t.startswith(sys.argv[2]): continue
    n+=1
    idx=[i for i,x in enumerate(names) if x.endswith(target)]
    if not idx: continue
    hit+=1
    i=max(idx)
    path=' < '.join(reversed(names[max(0,i-depth):i])) if i>0 else '(self)'
    callee[path]+=1
    leaf[names[0]]+=1
print('samples',n,'under',target,hit, f'{hit*100/max(n,1):.1f}%')
for k,c in callee.most_common(30): print(f'{c*100/n:5.2f} {k}')
print('--- leaves')
for k,c in leaf.most_common(int(sys.argv[5]) if len(sys.argv)>5 else 15): print(f'{c*100/n:5.2f} {k}')
