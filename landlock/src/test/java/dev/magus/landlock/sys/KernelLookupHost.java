package dev.magus.landlock.sys;

import java.util.Locale;
import org.junit.jupiter.api.Assumptions;

/** What the kernel-lookup tests need of the host: Linux (with /proc), and the natives loaded. */
final class KernelLookupHost {
    private KernelLookupHost() {
    }

    /**
     * Skips, saying why on stderr, off Linux; otherwise loads the natives, as a process that
     * spawns has, since {@link ProcFdLookup} answers only once they are.
     */
    static void assumeLinuxAndLoadNatives() {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        String why = "skipped: /proc/self/fd and the natives are Linux/glibc only";
        if (!linux) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(linux, why);
        Natives.require();
    }
}
