package dev.magus.landlock.sys;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import java.util.ArrayList;
import java.util.List;

/**
 * Chooses the process's {@link Syscalls} once, on whatever ordinary thread first needs them:
 * the JNA implementation when this is Linux on x86_64 or aarch64 and glibc has every symbol,
 * else the unsupported one, carrying why. JNA's first use runs {@code ldconfig -p} as a child
 * process and starts its {@code Cleaner} thread; both must happen here, on an unconfined
 * thread, never on a launch thread.
 */
public final class Natives {
    private Natives() {
    }

    private static final Object LOCK = new Object();
    private static volatile Syscalls chosen;
    // Held for the life of the process: the library so it is never unloaded, and one
    // allocation so JNA's Cleaner always has a registered object and never idles out (its
    // thread exits after 30 s without one and is restarted by whichever thread next
    // allocates; that must not be a confined thread).
    private static NativeLibrary libc;
    private static Memory cleanerPin;
    private static String glibcVersion = "";

    /** The process's native calls, chosen (and for JNA, loaded) on first use; never throws. */
    public static Syscalls syscalls() {
        Syscalls s = chosen;
        if (s != null) {
            return s;
        }
        synchronized (LOCK) {
            if (chosen == null) {
                chosen = choose();
            }
            return chosen;
        }
    }

    /**
     * {@link #syscalls()}, which must be available here.
     *
     * @throws IllegalStateException naming the platform, or every missing symbol with the glibc
     *                               release that introduced it, or JNA's own failure
     */
    public static Syscalls require() {
        Syscalls s = syscalls();
        if (!s.available()) {
            throw new IllegalStateException(s.unavailableReason());
        }
        return s;
    }

    /**
     * Whether the natives are chosen and available, without choosing them: for callers that
     * must not pay JNA's start-up themselves.
     */
    public static boolean ready() {
        Syscalls s = chosen;
        return s != null && s.available();
    }

    /** {@code glibc 2.36} once the JNA implementation is chosen; empty otherwise. */
    public static String glibcVersion() {
        return glibcVersion;
    }

    static boolean pinned() {
        return cleanerPin != null && libc != null;
    }

    private static Syscalls choose() {
        if (!Landlock.architectureSupported()) {
            return new UnsupportedSyscalls("magus-sandbox's launcher needs Linux on x86_64 or aarch64 with glibc;"
                    + " this is " + System.getProperty("os.name") + " on " + Platform.ARCH
                    + " (the Landlock system call numbers of other architectures are not wired in)");
        }
        try {
            NativeLibrary lib = NativeLibrary.getInstance(Platform.C_LIBRARY_NAME);
            List<String> missing = new ArrayList<>();
            for (List<String> symbol : JnaLibC.REQUIRED_SYMBOLS) {
                try {
                    lib.getFunction(symbol.get(0));
                } catch (UnsatisfiedLinkError e) {
                    missing.add(symbol.get(0) + " (glibc " + symbol.get(1) + ")");
                }
            }
            String version = versionOf(lib);
            if (!missing.isEmpty()) {
                return new UnsupportedSyscalls("the C library (" + version + ") lacks " + String.join(", ", missing)
                        + "; magus-sandbox's launcher needs glibc 2.34 or newer (musl is not supported)");
            }
            JnaLibC.register(lib);
            cleanerPin = new Memory(8);
            libc = lib;
            glibcVersion = version;
            return new JnaSyscalls();
        } catch (LinkageError e) {
            // JNA's own native part could not load (no jnidispatch for this platform, a noexec temp dir).
            return new UnsupportedSyscalls("JNA cannot load here: " + e);
        }
    }

    private static String versionOf(NativeLibrary lib) {
        try {
            Function f = lib.getFunction("gnu_get_libc_version");
            return "glibc " + f.invokeString(new Object[0], false);
        } catch (UnsatisfiedLinkError e) {
            return "not glibc";
        }
    }
}
