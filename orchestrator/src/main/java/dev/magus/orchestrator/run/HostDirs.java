package dev.magus.orchestrator.run;

import dev.magus.orchestrator.temp.Trees;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.IoFailures;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The directories of the host a sandboxed run needs before its child starts: the private temp
 * dir (its {@code TMPDIR}) and magus's cache dir. When the host cannot give them (a read-only or
 * full temp dir, a cache dir under a file) the run is refused with MGS2004 naming the variable
 * that chose the place, so the person knows what to change; never an "internal error".
 */
public final class HostDirs {
    private HostDirs() {
    }

    /**
     * {@link Trees#createPrivateTemp} under the host's temp base.
     *
     * @throws SandboxException MGS2004 naming {@code TMPDIR} (or {@code java.io.tmpdir} when the
     *         base did not come from it) when the dir cannot be made
     */
    public static Path createPrivateTemp(Host host) {
        try {
            return Trees.createPrivateTemp(host.tempBase());
        } catch (IOException e) {
            throw tempFailure(host, "cannot create the run's private temp dir under " + host.tempBase(), IoFailures.reason(e));
        } catch (InvalidPathException | SecurityException | UnsupportedOperationException e) {
            throw tempFailure(host, "cannot create the run's private temp dir under " + host.tempBase(), String.valueOf(e.getMessage()));
        }
    }

    /**
     * MGS2004 for a failure to use the temp base or a private temp dir under it: {@code doing}
     * says what, {@code reason} why, in the operating system's words.
     */
    public static SandboxException tempFailure(Host host, String doing, String reason) {
        String source = tempSource(host);
        return new SandboxException(Diagnostic.of(Code.MGS2004,
                doing + ": " + reason + "; each sandboxed run gets a private temp dir (its children's TMPDIR) and does not"
                        + " start without one; point " + source + " at a writable directory with free space",
                host.tempBase().toString(), Operation.NONE, Layer.POLICY, source));
    }

    /**
     * Creates magus's cache dir, which every sandboxed run is granted.
     *
     * @throws SandboxException MGS2004 naming {@code XDG_CACHE_HOME} (or {@code HOME}, which
     *         places it without that variable) when it cannot be made
     */
    public static void createCacheDir(Path cacheDir, Map<String, String> env) {
        try {
            // Looked at first, as createDirectories would after its mkdir's EEXIST (an exception per run).
            if (!Files.isDirectory(cacheDir)) {
                Files.createDirectories(cacheDir);
            }
        } catch (IOException e) {
            String source = Optional.ofNullable(env.get("XDG_CACHE_HOME")).filter(v -> v.startsWith("/")).isPresent()
                    ? "XDG_CACHE_HOME" : "HOME";
            throw new SandboxException(Diagnostic.of(Code.MGS2004,
                    "cannot create magus's cache dir " + cacheDir + ": " + IoFailures.reason(e) + "; a sandboxed run is"
                            + " granted it and does not start without it; point " + source + " at a writable directory",
                    cacheDir.toString(), Operation.NONE, Layer.POLICY, source));
        }
    }

    /** {@code TMPDIR} when the temp base is that variable's directory (bin/magus passes it on), else the JVM property. */
    private static String tempSource(Host host) {
        String tmpdir = host.env().get("TMPDIR");
        if (tmpdir != null && !tmpdir.isEmpty()) {
            try {
                if (Path.of(tmpdir).toAbsolutePath().normalize().equals(host.tempBase().toAbsolutePath().normalize())) {
                    return "TMPDIR";
                }
            } catch (InvalidPathException e) {
                return "TMPDIR";
            }
        }
        return "java.io.tmpdir";
    }
}
