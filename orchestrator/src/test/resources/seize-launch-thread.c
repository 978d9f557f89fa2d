#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/user.h>
/* PtraceLaunchThreadInRunsTest's tracer: a confined tool that, at once after exec,
 * tries PTRACE_SEIZE on every thread of its parent process (magus) at once after exec. */
static int tgid_of(int tid) {
    char p[64], line[256]; snprintf(p, sizeof p, "/proc/%d/status", tid);
    FILE *f = fopen(p, "r"); if (!f) return -1; int t = -1;
    while (fgets(line, sizeof line, f)) if (!strncmp(line, "Tgid:", 5)) t = atoi(line + 5);
    fclose(f); return t;
}
int main(void) {
    int pp = getppid(), me = getpid();
    int got = 0, tries = 0, tid = 0, err = 0;
    char path[64]; snprintf(path, sizeof path, "/proc/%d/task", pp);
    for (int round = 0; round < 200 && !got; round++) {
        /* guess first: the launch thread started shortly before us */
        for (int t = me - 1; t > me - 64 && t > 1 && !got; t--) {
            tries++;
            if (ptrace(PTRACE_SEIZE, t, 0, 0) == 0) { got = 1; tid = t; } else if (errno != ESRCH) err = errno;
        }
        DIR *d = opendir(path);
        if (d) { struct dirent *e;
            while (!got && (e = readdir(d))) { int t = atoi(e->d_name); if (t <= 0) continue; tries++;
                if (ptrace(PTRACE_SEIZE, t, 0, 0) == 0) { got = 1; tid = t; } else if (errno != ESRCH) err = errno; }
            closedir(d); }
    }
    FILE *o = fopen("seize.out", "w");
    if (got) {
        char p[64], comm[64] = "?", caps[64] = "?"; snprintf(p, sizeof p, "/proc/%d/comm", tid);
        FILE *c = fopen(p, "r"); if (c) { if (fgets(comm, sizeof comm, c)) comm[strcspn(comm, "\n")] = 0; fclose(c); }
        FILE *s = fopen("/proc/self/status", "r"); char line[256];
        if (s) { while (fgets(line, sizeof line, s)) if (!strncmp(line, "CapEff:", 7)) { strncpy(caps, line + 8, 63); caps[strcspn(caps, "\n")] = 0; } fclose(s); }
        long rip = -1; int st = 0;
        if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) == 0 && waitpid(tid, &st, __WALL) == tid) {
#ifdef __x86_64__
            struct user_regs_struct r; if (ptrace(PTRACE_GETREGS, tid, 0, &r) == 0) rip = (long) r.rip;
#endif
            ptrace(PTRACE_DETACH, tid, 0, 0);
        }
        fprintf(o, "attached %d tgid %d parent %d comm %s stopped-rip %lx mycapeff %s\n", tid, tgid_of(tid), pp, comm, rip, caps);
    }
    else fprintf(o, "none tries %d lasterr %d parent %d\n", tries, err, pp);
    fclose(o);
    return 0;
}
