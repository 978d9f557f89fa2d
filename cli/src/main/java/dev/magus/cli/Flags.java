package dev.magus.cli;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.events.IoFailures;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * A path given on the command line, taken as text and turned into a {@link Path} here rather
 * than by picocli: picocli's converter reports a NUL in it as a parse error with the raw bytes
 * echoed, where this names the flag as the source of an MGS2004 like every other refusal.
 */
final class Flags {
    private Flags() {
    }

    /**
     * @param source the flag or argument the value came from ({@code --events}, {@code PATH})
     * @throws SandboxException MGS2004 naming {@code source} when no file can have that name
     */
    static Path path(String value, String source) {
        try {
            return Path.of(value);
        } catch (InvalidPathException e) {
            String why = value.indexOf('\0') >= 0 ? "contains a NUL character, which no path can hold" : "is not a path: " + e.getReason();
            throw new SandboxException(Diagnostic.of(Code.MGS2004, Echo.quoted(value) + " " + why,
                    "", Operation.NONE, Layer.POLICY, source));
        }
    }

    /** MGS2004 for a file a flag names that magus cannot use, in the operating system's words. */
    static Diagnostic unusable(String flag, Path file, String what, IOException e) {
        return Diagnostic.of(Code.MGS2004, Echo.quoted(file.toString()) + " " + what + ": " + IoFailures.reason(e),
                file.toString(), Operation.NONE, Layer.POLICY, flag);
    }
}
