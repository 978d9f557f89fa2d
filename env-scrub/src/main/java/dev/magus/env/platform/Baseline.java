package dev.magus.env.platform;

import dev.magus.env.Allowlist;
import java.util.List;

/**
 * The non-secret variables every child keeps: who and where the user is, how to find
 * programs, and how to print. Everything else, credentials first, needs a passthrough.
 */
public final class Baseline {
    private Baseline() {
    }

    private static final List<String> COMMON = List.of("HOME", "USER", "LOGNAME", "PATH", "LANG", "LC_*", "TZ", "TERM");
    private static final List<String> UNIX = List.of("SHELL", "PWD", "XDG_*");

    private static final Allowlist COMMON_ONLY = Allowlist.parse(COMMON, "baseline");
    private static final Allowlist WITH_UNIX = COMMON_ONLY.union(Allowlist.parse(UNIX, "baseline"));

    public static Allowlist of(Platform platform) {
        return switch (platform) {
            case LINUX, MACOS -> WITH_UNIX;
            case OTHER -> COMMON_ONLY;
        };
    }
}
