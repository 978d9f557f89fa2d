import re,sys,collections
for label in sys.argv[1:]:
    lines=open(f'full-{label}.txt').read().splitlines()
    io=[l.split()[0] for l in lines if 'fanotify_init(' in l][0]
    seq=[l.split(None,1)[1] for l in lines if l.split(None,1)[0]==io and not l.split(None,1)[1].startswith('<...')]
    runs=sum(1 for b in seq if b.startswith('fanotify_init'))
    skip=set(); out=collections.Counter()
    for b in seq:
        name=b.split('(')[0]
        m=re.match(r'openat\((\d+|AT_FDCWD), "([^"]*)".*= (\d+)',b)
        if m and ('/proc/' in m.group(2) and ('/stat' in m.group(2) or 'children' in m.group(2) or '/task' in m.group(2)) or m and m.group(1)!='AT_FDCWD' and 'children' in m.group(2)):
            skip.add(m.group(3)); continue
        m=re.match(r'(dup)\((\d+)\).*= (\d+)',b)
        if m and m.group(2) in skip: skip.add(m.group(3)); continue
        m=re.match(r'\w+\((\d+)[,)]',b)
        if m and m.group(1) in skip:
            if name=='close': skip.discard(m.group(1))
            continue
        if name in ('futex','sched_yield','gettid','pread64','wait4','waitid','kill','sched_getaffinity','sched_setaffinity','rt_sigprocmask','mprotect','mmap','munmap','madvise'): continue
        out[name]+=1
    tot=sum(out.values())
    print(label,'runs',runs,'per run (excluding /proc polls, stray check, futex/mm/scheduling):',round(tot/runs,1))
    print('  ',' '.join(f'{k}={v/runs:.1f}' for k,v in out.most_common(14)))
