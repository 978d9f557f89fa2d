package dev.magus.landlock.abi;

/**
 * The Landlock ABI of the host: 0 when Landlock is absent, disabled or not reachable from
 * this JVM. An interface so tests can play hosts with ABI 0, 1, 2, 3.
 */
@FunctionalInterface
public interface LandlockProbe {
    int abi();

    /** The running kernel, probed once per process. */
    static LandlockProbe kernel() {
        return KernelProbe.INSTANCE;
    }

    /** A host that always answers {@code abi}. */
    static LandlockProbe fixed(int abi) {
        if (abi < 0) {
            throw new IllegalArgumentException("ABI must be 0 (none) or more: " + abi);
        }
        return () -> abi;
    }
}
