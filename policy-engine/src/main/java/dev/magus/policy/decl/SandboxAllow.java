package dev.magus.policy.decl;

import dev.magus.events.Echo;
import dev.magus.policy.fs.AccessMode;
import java.util.Map;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One {@code allow} entry: a location and a mode. The location is {@code env}'s value when that
 * variable is set, as the tool itself reads it; otherwise {@code path}, under {@code base} when
 * given, else absolute or starting with {@code ~}. Construction checks all that needs no host;
 * what cannot be honored is MGS2004 naming {@link #site() its layer and key} (a base without a
 * path, a path leaving its base, a relative path without a base, {@code $} outside magus.yaml, a
 * malformed variable name). What needs the host is decided when the policy is built.
 * @param name  an optional label, shown by {@code magus policy}
 * @param env   a variable whose value, when set, is the location
 * @param base  the directory {@code path} is under
 * @param path  absolute, {@code ~}-relative, or relative to {@code base}; {@code $VAR} in magus.yaml only
 * @param mode  {@code ro} (the default), {@code rw}, {@code rx} or {@code rwx}; exec is never implied
 * @param layer the layer that declared it
 * @param site  where it was declared, for diagnostics
 */
public record SandboxAllow(
        Optional<String> name,
        Optional<String> env,
        Optional<Base> base,
        Optional<String> path,
        AccessMode mode,
        DeclLayer layer,
        Site site) {

    /** The keys of one {@code sandbox.allow} entry, in the order they are read; listed here only. */
    public static final List<String> KEYS = List.of("name", "env", "base", "path", "mode");

    public SandboxAllow {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(layer, "layer");
        Objects.requireNonNull(site, "site");
        if (mode.isEmpty()) {
            throw Mgs2004.at(site, "mode", "an allow entry must grant at least read (ro, rw, rx or rwx)");
        }
        if (name.isPresent() && name.get().isBlank()) {
            throw Mgs2004.at(site, "name", "name must not be empty");
        }
        if (name.isPresent() && !Echo.visible(name.get()).equals(name.get())) {
            // magus policy prints the name as the rule's origin: it must not carry terminal controls.
            throw Mgs2004.at(site, "name", "name " + Echo.quoted(name.get()) + " contains control characters");
        }
        if (env.isPresent() && !Variables.isName(env.get())) {
            throw Mgs2004.at(site, "env", Echo.quoted(env.get()) + " is not a variable name");
        }
        if (env.isEmpty() && path.isEmpty()) {
            throw Mgs2004.at(site, "", "an allow entry needs env or path: it names no location");
        }
        if (base.isPresent() && path.isEmpty()) {
            throw Mgs2004.at(site, "base", "base " + base.get() + " needs a path under it: the base"
                    + " itself is every program's directory, not one tool's");
        }
        path.ifPresent(p -> checkPath(p, base, layer, site));
    }

    private static void checkPath(String p, Optional<Base> base, DeclLayer layer, Site site) {
        if (p.isEmpty()) {
            throw Mgs2004.at(site, "path", "path must not be empty");
        }
        if (p.indexOf('\0') >= 0) {
            // No file has such a name: the kernel would read the path only up to the NUL.
            throw Mgs2004.at(site, "path", "path " + Echo.quoted(p) + " contains a NUL character, which no path can hold");
        }
        boolean variables = p.indexOf('$') >= 0;
        if (variables && !layer.expandsVariables()) {
            throw Mgs2004.at(site, "path", "path " + Echo.quoted(p) + " contains '$': only magus.yaml may write"
                    + " $VAR in a path; a spell or target names a variable through env and base");
        }
        if (variables) {
            Variables.checkSyntax(p, site, "path");
            if (base.isPresent() || p.startsWith("$")) {
                // Whether it is absolute, or stays under its base, is known once it is expanded.
                return;
            }
        }
        if (base.isPresent()) {
            checkUnderBase(p, base.get(), site);
        } else if (!(p.startsWith("/") || p.equals("~") || p.startsWith("~/"))) {
            throw Mgs2004.at(site, "path", "path " + Echo.quoted(p) + " is relative and has no base: write an"
                    + " absolute path, one starting with ~/, or give a base");
        }
    }

    /** A path under a base is relative, non-empty and never climbs: {@code ../x} leaves the base. */
    static void checkUnderBase(String p, Base base, Site site) {
        if (p.startsWith("/") || p.startsWith("~")) {
            throw Mgs2004.at(site, "path", "path " + Echo.quoted(p) + " leaves its base " + base
                    + ": under a base the path is relative (drop the base to declare an absolute path)");
        }
        boolean any = false;
        for (String component : p.split("/")) {
            if (component.equals("..")) {
                throw Mgs2004.at(site, "path", "path " + Echo.quoted(p) + " leaves its base " + base
                        + ": '..' is not allowed under a base");
            }
            any |= !(component.isEmpty() || component.equals("."));
        }
        if (!any) {
            throw Mgs2004.at(site, "path", "base " + base + " needs a path under it, not " + Echo.quoted(p));
        }
    }

    /**
     * Builds an entry from the words a declaration wrote. {@code base} and {@code mode} are
     * parsed exactly; an unknown one is MGS2004. A missing mode is {@code ro}.
     */
    public static SandboxAllow declare(
            Optional<String> name,
            Optional<String> env,
            Optional<String> base,
            Optional<String> path,
            Optional<String> mode,
            DeclLayer layer,
            Site site) {
        Optional<Base> b = base.map(text -> Base.parse(text).orElseThrow(() -> Mgs2004.at(site, "base",
                "unknown base " + Echo.quoted(text) + " (expected one of " + Base.spellings() + ")")));
        AccessMode m = mode.map(text -> AccessMode.parseDeclared(text).orElseThrow(() -> Mgs2004.at(site, "mode",
                "unknown access mode " + Echo.quoted(text) + " (expected ro, rw, rx or rwx; exec is never implied)")))
                .orElse(AccessMode.R);
        return new SandboxAllow(name, env, b, path, m, layer, site);
    }

    /**
     * The path with magus.yaml's {@code $VAR} expanded from {@code hostEnv}; an unset one is
     * MGS2004. A based path must still stay under its base once expanded.
     */
    public Optional<String> expandedPath(Map<String, String> hostEnv) {
        if (path.isEmpty() || path.get().indexOf('$') < 0) {
            return path;
        }
        String expanded = Variables.expand(path.get(), hostEnv, site, "path");
        if (base.isPresent()) {
            checkUnderBase(expanded, base.get(), site);
        } else if (!(expanded.startsWith("/") || expanded.equals("~") || expanded.startsWith("~/"))) {
            throw Mgs2004.at(site, "path", "path " + Echo.quoted(path.get()) + " expands to " + Echo.quoted(expanded)
                    + ", which is not absolute");
        }
        return Optional.of(expanded);
    }

    /**
     * How a rule from this entry is named: {@code workspace:mise-installs},
     * {@code workspace:sandbox.allow[2]}, {@code spell:go}, {@code spell:go/gocache},
     * {@code target:test}.
     */
    public String origin() {
        if (layer instanceof DeclLayer.Workspace) {
            return "workspace:" + name.orElse(site.key());
        }
        return layer.label() + name.map(n -> "/" + n).orElse("");
    }
}
