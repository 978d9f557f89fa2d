package dev.magus.landlock.abi;

import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.Landlock;
import dev.magus.landlock.sys.Natives;

/** {@code landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)}, cached. */
final class KernelProbe implements LandlockProbe {
    static final KernelProbe INSTANCE = new KernelProbe();

    private volatile int abi = -1;

    private KernelProbe() {
    }

    @Override
    public int abi() {
        int a = abi;
        if (a < 0) {
            a = probe();
            abi = a;
        }
        return a;
    }

    private static int probe() {
        if (!Landlock.architectureSupported()) {
            return 0;
        }
        // Throws where the natives cannot load on a supported architecture, as before the probe could answer.
        long r = Natives.require().landlockAbiVersion();
        if (r > 0) {
            return (int) r;
        }
        int errno = (int) -r;
        if (errno == Errno.ENOSYS || errno == Errno.EOPNOTSUPP) {
            return 0;
        }
        throw new IllegalStateException("probing Landlock failed: " + Errno.describe(errno));
    }
}
