package dev.magus.policy.decl;

import dev.magus.env.Allowlist;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.policy.fs.AccessMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The one-run grants of the command line, {@code magus run --allow PATH[:ro|rw|rx|rwx] --pass VAR},
 * as the {@link DeclLayer.Cli cli} layer: merged last, by the same union as every other layer
 * (it only adds), and named {@code cli} in {@code magus policy}.
 *
 * <p>{@code --allow}: the mode follows the last {@code :} when what follows it has no {@code /}
 * (so {@code /srv/a:b/c} is a path); without one it is {@code ro}. A relative path is relative
 * to the working directory; {@code ~} and {@code ~/...} are the home directory. {@code --pass}:
 * a variable name or a {@code PREFIX_*} pattern, as {@code env.passthrough}. Anything else is
 * MGS2004 naming the flag: the run is refused (125), never run with less or more than asked.
 */
public final class CommandLineDecl {
    public static final String ALLOW = "--allow";
    public static final String PASS = "--pass";

    private CommandLineDecl() {
    }

    /**
     * @param cwd the directory a relative {@code --allow} path is relative to (the run's working directory)
     * @throws SandboxException MGS2004 naming {@code --allow} or {@code --pass}
     */
    public static SandboxDecl parse(List<String> allow, List<String> pass, Path cwd) {
        List<SandboxAllow> entries = new ArrayList<>();
        for (int i = 0; i < allow.size(); i++) {
            entries.add(entry(allow.get(i), i, cwd));
        }
        Allowlist passthrough = Allowlist.EMPTY;
        for (String p : pass) {
            if (p.isEmpty()) {
                throw refused(PASS, p, "--pass needs a variable name or a PREFIX_* pattern");
            }
            passthrough = passthrough.union(Allowlist.parse(List.of(p), PASS));
        }
        return new SandboxDecl(entries, passthrough, DeclLayer.cli());
    }

    private static SandboxAllow entry(String spec, int index, Path cwd) {
        if (spec.indexOf('\0') >= 0) {
            throw refused(ALLOW, spec, Echo.quoted(spec) + " contains a NUL character, which no path can hold");
        }
        String path = spec;
        Optional<String> mode = Optional.empty();
        int colon = spec.lastIndexOf(':');
        if (colon >= 0 && spec.indexOf('/', colon) < 0) {
            path = spec.substring(0, colon);
            mode = Optional.of(spec.substring(colon + 1));
        }
        if (path.isEmpty()) {
            throw refused(ALLOW, spec, "--allow takes PATH[:ro|rw|rx|rwx], not " + Echo.quoted(spec) + ": no path");
        }
        Optional<AccessMode> m = mode.map(text -> AccessMode.parseDeclared(text).orElseThrow(() -> refused(ALLOW, spec,
                "unknown access mode " + Echo.quoted(text) + " in " + Echo.quoted(spec) + " (expected ro, rw, rx or rwx"
                        + " after the last ':'; exec is never implied; a path whose last component holds ':' takes an"
                        + " explicit mode, PATH:ro)")));
        if (path.indexOf('$') >= 0) {
            // The shell expands variables; a '$' left is one the person did not mean as a name.
            throw refused(ALLOW, spec, "path " + Echo.quoted(path) + " contains '$': let the shell expand variables"
                    + " (write --allow \"$VAR\" unquoted or double-quoted)");
        }
        String absolute = path.startsWith("/") || path.equals("~") || path.startsWith("~/") ? path
                : cwd.resolve(path).normalize().toString();
        Site site = Site.of(ALLOW, ALLOW + "[" + index + "]");
        return new SandboxAllow(Optional.empty(), Optional.empty(), Optional.empty(), Optional.of(absolute),
                m.orElse(AccessMode.R), DeclLayer.cli(), site);
    }

    /**
     * The refusal of an {@code --allow} the policy builder turned down ({@code --allow ~:rw}):
     * MGS2004 naming the flag, as a malformed value's.
     */
    public static SandboxException unhonoured(String value, String message) {
        return refused(ALLOW, value, message);
    }

    private static SandboxException refused(String flag, String value, String message) {
        return new SandboxException(Diagnostic.of(Code.MGS2004, message, value, Operation.NONE, Layer.POLICY, flag));
    }
}
