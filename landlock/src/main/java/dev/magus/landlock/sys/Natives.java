package dev.magus.landlock.sys;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import java.util.ArrayList;
import java.util.List;

/**
 * One-time native start-up, on whatever ordinary thread first needs it. JNA's first use runs
 * {@code ldconfig -p} as a child process and starts its {@code Cleaner} thread; both must
 * happen here, on an unconfined thread, never on a launch thread.
 */
public final class Natives {
    private Natives() {
    }

    private static final Object LOCK = new Object();
    private static volatile boolean ready;
    // Held for the life of the process: the library so it is never unloaded, and one
    // allocation so JNA's Cleaner always has a registered object and never idles out (its
    // thread exits after 30 s without one and is restarted by whichever thread next
    // allocates; that must not be a confined thread).
    private static NativeLibrary libc;
    private static Memory cleanerPin;
    private static String glibcVersion = "";

    /**
     * Looks up every symbol the module uses and registers them.
     *
     * @throws IllegalStateException naming the platform, or every missing symbol with the glibc
     *                               release that introduced it
     */
    public static void init() {
        if (ready) {
            return;
        }
        synchronized (LOCK) {
            if (ready) {
                return;
            }
            if (!Landlock.architectureSupported()) {
                throw new IllegalStateException("magus-sandbox's launcher needs Linux on x86_64 or aarch64 with glibc;"
                        + " this is " + System.getProperty("os.name") + " on " + Platform.ARCH
                        + " (the Landlock system call numbers of other architectures are not wired in)");
            }
            NativeLibrary lib = NativeLibrary.getInstance(LibC.libraryName());
            List<String> missing = new ArrayList<>();
            for (String[] symbol : LibC.REQUIRED_SYMBOLS) {
                try {
                    lib.getFunction(symbol[0]);
                } catch (UnsatisfiedLinkError e) {
                    missing.add(symbol[0] + " (glibc " + symbol[1] + ")");
                }
            }
            String version = versionOf(lib);
            if (!missing.isEmpty()) {
                throw new IllegalStateException("the C library (" + version + ") lacks " + String.join(", ", missing)
                        + "; magus-sandbox's launcher needs glibc 2.34 or newer (musl is not supported)");
            }
            LibC.register(lib);
            cleanerPin = new Memory(8);
            libc = lib;
            glibcVersion = version;
            ready = true;
        }
    }

    /** Whether {@link #init()} has succeeded: the natives are usable without any start-up cost. */
    public static boolean ready() {
        return ready;
    }

    /** {@code glibc 2.36}, after {@link #init()}. */
    public static String glibcVersion() {
        return glibcVersion;
    }

    static boolean pinned() {
        return cleanerPin != null && libc != null;
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
