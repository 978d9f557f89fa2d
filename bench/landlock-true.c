/*
 * The minimal C Landlock launcher of bench/cli-latency.sh: a ruleset that handles
 * every filesystem access right the running ABI knows, one rule allowing reading and
 * executing beneath /, no_new_privs, restrict_self, then exec of the command (`true`).
 * Writes are denied everywhere. It is what the cheapest confined start costs on this kernel:
 * the floor the native forwarding client is measured against. Built only by the bench script.
 *   cc -O2 -o landlock-true bench/landlock-true.c && ./landlock-true true
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: landlock-true COMMAND [ARGS...]\n");
        return 2;
    }
    int abi = (int) syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        perror("landlock: no Landlock on this kernel");
        return 125;
    }
    __u64 all = (1ULL << 13) - 1; /* ABI 1: execute ... make_sym */
    if (abi >= 2) all |= 1ULL << 13; /* refer */
    if (abi >= 3) all |= 1ULL << 14; /* truncate */
    if (abi >= 5) all |= 1ULL << 15; /* ioctl_dev */
    struct landlock_ruleset_attr attr = {.handled_access_fs = all};
    int ruleset = (int) syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (ruleset < 0) {
        perror("landlock_create_ruleset");
        return 125;
    }
    struct landlock_path_beneath_attr root = {
        .allowed_access = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR,
        .parent_fd = open("/", O_PATH | O_CLOEXEC),
    };
    if (root.parent_fd < 0 || syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &root, 0)) {
        perror("landlock_add_rule /");
        return 125;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_landlock_restrict_self, ruleset, 0)) {
        perror("landlock_restrict_self");
        return 125;
    }
    close(ruleset);
    close(root.parent_fd);
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    return 127;
}
