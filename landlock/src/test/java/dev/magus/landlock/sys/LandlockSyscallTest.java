package dev.magus.landlock.sys;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.AbiRights;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.compile.CompiledRuleset;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel facts the module relies on, measured again on this host. Anything that confines
 * runs on a throwaway thread that does nothing else and ends; assertions run on the test thread.
 */
class LandlockSyscallTest {
    private static final Syscalls SYS = Natives.syscalls();

    int abi;

    @BeforeEach
    void assumeLandlock() {
        abi = LandlockProbe.kernel().abi();
        String why = "kernel-layer test skipped: this kernel has no Landlock (ABI 0)";
        if (abi == 0) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(abi > 0, why);
    }

    @Test
    void theKernelRefusesDirectoryRightsOnAFileAndRightsOutsideTheHandledSet(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("f"), "x");
        Structs.RulesetAttr attr = new Structs.RulesetAttr();
        attr.handled_access_fs = Landlock.READ_FILE | Landlock.READ_DIR;
        attr.write();
        int ruleset = (int) SYS.landlockCreateRuleset(attr.getPointer(), attr.size());
        assertThat(ruleset).isPositive();
        int fd = SYS.open((file + "\0").getBytes(StandardCharsets.UTF_8), LibC.O_PATH | LibC.O_CLOEXEC, 0);
        try {
            Structs.PathBeneathAttr rule = new Structs.PathBeneathAttr();
            rule.parent_fd = fd;
            rule.allowed_access = Landlock.READ_DIR;
            rule.write();
            assertThat(SYS.landlockAddPathBeneath(ruleset, rule.getPointer())).isEqualTo(-Errno.EINVAL);
            rule.allowed_access = Landlock.WRITE_FILE;
            rule.write();
            assertThat(SYS.landlockAddPathBeneath(ruleset, rule.getPointer())).isEqualTo(-Errno.EINVAL);
            rule.allowed_access = Landlock.READ_FILE;
            rule.write();
            assertThat(SYS.landlockAddPathBeneath(ruleset, rule.getPointer())).isZero();
        } finally {
            SYS.close(fd);
            SYS.close(ruleset);
        }
    }

    @Test
    void theAuditFlagIsAcceptedFromAbi7AndDomainsStackSixteenDeep() throws InterruptedException {
        AtomicLongArray results = new AtomicLongArray(20);
        try (CompiledRuleset all = CompiledRuleset.allowAll(abi); CompiledRuleset.Lease lease = all.lease()) {
            int fd = lease.fd();
            int flags = AbiRights.restrictFlags(abi);
            Thread t = new Thread(() -> {
                results.set(0, SYS.prctl(LibC.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
                for (int i = 1; i < 20; i++) {
                    results.set(i, SYS.landlockRestrictSelf(fd, flags));
                }
            }, "test-throwaway-domain");
            t.start();
            t.join();
        }
        assertThat(results.get(0)).isZero();
        assertThat(results.get(1)).as("restrict_self with flags %d", AbiRights.restrictFlags(abi)).isZero();
        // 16 nested domains at most; this JVM may itself already run inside some.
        long firstFailure = -1;
        for (int i = 1; i < 20; i++) {
            if (results.get(i) != 0) {
                firstFailure = i;
                assertThat(results.get(i)).isEqualTo(-Errno.E2BIG);
                break;
            }
        }
        assertThat(firstFailure).isBetween(2L, 17L);
    }

    @Test
    void theTestThreadItselfWasNeverConfined() throws IOException {
        List<String> status = Files.readAllLines(Path.of("/proc/thread-self/status"));
        assertThat(status).contains("NoNewPrivs:\t0");
    }
}
