/*
 * The floor of the supervisor's round trip: what one intercepted call costs when the supervisor
 * does the least magus's must (a C loop, no JVM). A child process installs a seccomp filter that
 * hands every openat to a user-notification listener, then opens one file N times; its parent,
 * holding the listener (pidfd_getfd), answers each with the least work: ppoll, RECV, the path
 * read with process_vm_readv, optionally readlink of /proc/PID/cwd (a relative path), and SEND
 * with CONTINUE, the two woken on one CPU (SYNC_WAKE_UP). Prints the median and p99 of the
 * child's open, without the filter and with it. Built only by hand (needs Linux 5.6, root or
 * the same user):
 *   cc -O2 -o supervise-floor bench/supervise-floor.c && ./supervise-floor 20000
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOTIF_SET_FLAGS 0x40082104UL /* SECCOMP_IOCTL_NOTIF_SET_FLAGS (Linux 6.6) */
#define FD_SYNC_WAKE_UP 1UL

static int cmp(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static long ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void run(int n, int filtered, int cwd) {
    int report[2], go[2];
    if (pipe(report) || pipe(go)) {
        perror("pipe");
        exit(1);
    }
    pid_t child = fork();
    if (child == 0) {
        int listener = -1;
        if (filtered) {
            struct sock_filter f[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
            };
            struct sock_fprog prog = {4, f};
            prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
            if (listener < 0) {
                perror("seccomp");
                _exit(1);
            }
        }
        char x;
        if (write(report[1], &listener, sizeof listener) != sizeof listener || read(go[0], &x, 1) != 1) {
            _exit(1);
        }
        long *lat = malloc(n * sizeof(long));
        for (int i = 0; i < n; i++) {
            long t = ns();
            int fd = openat(AT_FDCWD, cwd ? "." : "/", O_RDONLY | O_DIRECTORY);
            lat[i] = ns() - t;
            close(fd);
        }
        qsort(lat, n, sizeof(long), cmp);
        printf("%-26s median_us=%.1f p99_us=%.1f\n",
               !filtered ? "plain" : cwd ? "supervised, relative path" : "supervised, absolute path",
               lat[n / 2] / 1000.0, lat[n * 99 / 100] / 1000.0);
        fflush(stdout);
        _exit(0);
    }
    int listener;
    if (read(report[0], &listener, sizeof listener) != sizeof listener) {
        exit(1);
    }
    if (filtered) {
        int pidfd = syscall(SYS_pidfd_open, child, 0);
        listener = syscall(SYS_pidfd_getfd, pidfd, listener, 0);
        if (listener < 0) {
            perror("pidfd_getfd");
            exit(1);
        }
        ioctl(listener, NOTIF_SET_FLAGS, FD_SYNC_WAKE_UP); /* best effort, as magus */
    }
    if (write(go[1], "x", 1) != 1) {
        exit(1);
    }
    while (filtered) {
        struct pollfd p = {listener, POLLIN, 0};
        struct timespec t = {0, 50000000};
        if (ppoll(&p, 1, &t, NULL) <= 0) {
            continue;
        }
        if (p.revents & POLLHUP) {
            break;
        }
        struct seccomp_notif notif;
        memset(&notif, 0, sizeof notif);
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &notif) < 0) {
            if (errno == ENOENT || errno == EINTR) {
                continue;
            }
            break;
        }
        char path[4096], dir[4096], link[64];
        struct iovec local = {path, 256}, remote = {(void *)notif.data.args[1], 256};
        process_vm_readv(notif.pid, &local, 1, &remote, 1, 0);
        if (cwd) {
            snprintf(link, sizeof link, "/proc/%d/cwd", notif.pid);
            readlink(link, dir, sizeof dir);
        }
        struct seccomp_notif_resp resp;
        memset(&resp, 0, sizeof resp);
        resp.id = notif.id;
        resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
    }
    waitpid(child, NULL, 0);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    if (n < 100) {
        fprintf(stderr, "usage: supervise-floor [OPENS >= 100]\n");
        return 2;
    }
    run(n, 0, 0);
    run(n, 1, 0);
    run(n, 1, 1);
    return 0;
}
