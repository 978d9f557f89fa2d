package dev.magus.env.platform;

import dev.magus.env.Allowlist;
import java.util.Locale;

/** The host family, as far as the environment baseline cares. */
public enum Platform {
    LINUX, MACOS, OTHER;

    /** Maps a {@code os.name} value; anything neither Linux nor macOS is {@link #OTHER}. */
    public static Platform fromOsName(String osName) {
        String os = osName.toLowerCase(Locale.ROOT);
        if (os.contains("linux")) {
            return LINUX;
        }
        if (os.startsWith("mac") || os.contains("darwin") || os.contains("os x")) {
            return MACOS;
        }
        return OTHER;
    }

    /** The platform this JVM runs on; the only place the module consults the host. */
    public static Platform current() {
        String name = System.getProperty("os.name", "");
        // Keyed on the property's exact value: asked several times per run, it is mapped once.
        Current c = CURRENT;
        if (c != null && c.osName().equals(name)) {
            return c.platform();
        }
        Platform p = fromOsName(name);
        CURRENT = new Current(name, p);
        return p;
    }

    /** The last {@code os.name} mapped by {@link #current()}, and its platform. */
    private record Current(String osName, Platform platform) {
    }

    private static volatile Current CURRENT;

    /** What survives the scrub on this platform without any passthrough. */
    public Allowlist baseline() {
        return Baseline.of(this);
    }
}
