package dev.magus.workspace.spell;

import dev.magus.env.Allowlist;
import dev.magus.env.shim.ShimManager;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.SandboxDecl;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The sandbox declaration of one toolchain.
 *
 * @param name          how projects bind it and {@code magus policy} names it ({@code spell:node})
 * @param sandbox       its {@code allow} entries and {@code env.passthrough}, at layer {@code spell:NAME}
 * @param managers      the version managers it knows, for MGS2006
 * @param registryHosts the package-registry hosts its tools fetch from; data for a network policy
 * @param source        where it was defined: {@code built-in}, {@code .magus/spells/NAME.yaml}, a provider's class
 * @param creates       its write entries magus creates before a run when missing (a tool's cache):
 *                      the kernel grants only what exists, so a fresh home would refuse the tool its cache
 * @param createdFor    for some of {@code creates}: the marker files of the one tool that uses it
 *                      ({@code ~/.gradle/caches}: {@code build.gradle}, ...), made only for a project
 *                      that has one; an entry not named here is made for every project
 */
public record Spell(String name, SandboxDecl sandbox, List<ShimManager> managers, List<String> registryHosts, String source,
        Set<String> creates, java.util.Map<String, List<String>> createdFor) {

    /** A spell that creates nothing. */
    public Spell(String name, SandboxDecl sandbox, List<ShimManager> managers, List<String> registryHosts, String source) {
        this(name, sandbox, managers, registryHosts, source, Set.of(), java.util.Map.of());
    }

    /** Whether a project holding {@code markers} (file names in its directory) gets {@code entry} made. */
    public boolean createsFor(String entry, java.util.function.Predicate<String> hasMarker) {
        if (!creates.contains(entry)) {
            return false;
        }
        List<String> markers = createdFor.get(entry);
        return markers == null || markers.stream().anyMatch(hasMarker);
    }

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");
    private static final Pattern HOST = Pattern.compile("(\\*\\.)?[a-z0-9]([a-z0-9-]{0,62})?(\\.[a-z0-9]([a-z0-9-]{0,62})?)*");

    /**
     * @throws SandboxException MGS2004 naming the spell for a name that is not one, a
     *         declaration at another layer, a registry host that is not a host name
     */
    public Spell {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(name, "name");
        if (!isName(name)) {
            throw refused(name, source, "spell name " + Echo.quoted(name) + " is not one: lower-case letters, digits,"
                    + " '-' and '_', starting with a letter or digit, at most 64 characters");
        }
        Objects.requireNonNull(sandbox, "sandbox");
        if (!sandbox.layer().equals(DeclLayer.spell(name))) {
            throw refused(name, source, "spell " + name + " declares at layer " + sandbox.layer().label()
                    + ", not spell:" + name);
        }
        managers = List.copyOf(managers);
        registryHosts = List.copyOf(registryHosts);
        creates = Set.copyOf(creates);
        createdFor = java.util.Map.copyOf(createdFor);
        for (String c : creates) {
            boolean writable = sandbox.allow().stream().anyMatch(a -> a.name().equals(java.util.Optional.of(c))
                    && a.mode().has(dev.magus.policy.fs.Access.WRITE));
            if (!writable) {
                throw refused(name, source, "spell " + name + " creates " + Echo.quoted(c) + ", which is not one of its write entries");
            }
        }
        for (String h : registryHosts) {
            if (!HOST.matcher(h).matches() || h.length() > 253) {
                throw refused(name, source, "spell " + name + ": registry host " + Echo.quoted(h)
                        + " is not a host name (lower case, as example.org or *.example.org)");
            }
        }
    }

    /** Whether {@code text} can name a spell (and so a file {@code .magus/spells/NAME.yaml}). */
    public static boolean isName(String text) {
        return NAME.matcher(text).matches();
    }

    /** The variables it adds back to the children's environment. */
    public Allowlist passthrough() {
        return sandbox.passthrough();
    }

    private static SandboxException refused(String name, String source, String message) {
        return new SandboxException(Diagnostic.of(Code.MGS2004, message, name, Operation.NONE, Layer.POLICY,
                "spell:" + Echo.cut(name) + " (" + source + ")"));
    }
}
