import sys,re,collections
def blocks(f):
    cur=[]
    for l in open(f,errors='replace'):
        if l.strip()=='' :
            if cur: yield cur
            cur=[]
        else: cur.append(l.rstrip('\n'))
    if cur: yield cur
for w in sys.argv[1:]:
    tot=collections.Counter(); hit=collections.Counter(); lst=collections.Counter()
    for b in blocks(f'perf-{w}.script'):
        comm=b[0].split()[0]
        key='magus-io' if comm.startswith('magus-io') else 'all'
        s='\n'.join(b[1:])
        for k in (key,'process'):
            if k=='all' and key!='all': pass
        tot['process']+=1
        if key=='magus-io': tot['magus-io']+=1
        ex=('fill_in_stack_trace' in s or 'Throwable::fill' in s or 'java_lang_Throwable' in s or 'Throwable.<init>' in s or 'Throwable::<init>' in s or 'UnixException' in s or 'NoSuchFileException' in s)
        if ex:
            hit['process']+=1
            if key=='magus-io': hit['magus-io']+=1
    print(w, {k:(tot[k],hit[k],'%.2f%%'%(100*hit[k]/max(1,tot[k]))) for k in tot})
