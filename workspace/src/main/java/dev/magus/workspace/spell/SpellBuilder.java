package dev.magus.workspace.spell;

import dev.magus.env.shim.ShimManager;
import dev.magus.policy.decl.Base;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.policy.decl.SandboxEnv;
import dev.magus.policy.decl.Site;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.Locations;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Writes a built-in spell's declaration the way the tool reads its own locations. Three kinds of
 * entry:
 * <ul>
 *   <li>{@link #variable}: the specification's shape, the variable's value when set, else a
 *       path under a base ({@code GOCACHE} else {@code userCache/go-build});</li>
 *   <li>{@link #under}: a part of a tool's home ({@code $CARGO_HOME/registry}, else
 *       {@code ~/.cargo/registry}), so that the home's credential files stay out. The home is
 *       read here, from the variable the tool reads; when its value cannot be a location (not
 *       absolute, or home or above) the spell declares the variable alone, which the policy
 *       builder reports as granting nothing, as it would any such variable;</li>
 *   <li>{@link #path}: a fixed place ({@code ~/.m2/repository}).</li>
 * </ul>
 */
final class SpellBuilder {
    private final String name;
    private final SpellHost host;
    private final DeclLayer layer;
    private final List<SandboxAllow> allow = new ArrayList<>();
    private final Set<String> passthrough = new LinkedHashSet<>();
    private final Set<String> unusable = new LinkedHashSet<>();
    private final List<ShimManager> managers = new ArrayList<>();
    private final List<String> registries = new ArrayList<>();
    private final Set<String> creates = new LinkedHashSet<>();
    private final java.util.Map<String, List<String>> createdFor = new java.util.LinkedHashMap<>();

    SpellBuilder(String name, SpellHost host) {
        this.name = name;
        this.host = host;
        this.layer = DeclLayer.spell(name);
    }

    /** {@code env} when set, else {@code path} under {@code base}. */
    SpellBuilder variable(String entry, String env, Base base, String path, AccessMode mode) {
        return add(entry, Optional.of(env), Optional.of(base), Optional.of(path), mode);
    }

    /** {@code env} when set, else nothing. */
    SpellBuilder variable(String entry, String env, AccessMode mode) {
        if (host.variable(env).isPresent()) {
            add(entry, Optional.of(env), Optional.empty(), Optional.empty(), mode);
        }
        return this;
    }

    /** {@code path} under {@code base}, read from no variable of the tool's own. */
    SpellBuilder base(String entry, Base base, String path, AccessMode mode) {
        return add(entry, Optional.empty(), Optional.of(base), Optional.of(path), mode);
    }

    /** A fixed place: absolute or {@code ~/...}. */
    SpellBuilder path(String entry, String path, AccessMode mode) {
        return add(entry, Optional.empty(), Optional.empty(), Optional.of(path), mode);
    }

    /** {@code sub} inside the tool's home {@code dir}. */
    SpellBuilder under(String entry, ToolDir dir, String sub, AccessMode mode) {
        Optional<String> location = dir.location(host);
        if (location.isPresent()) {
            return path(entry, location.get() + (sub.isEmpty() ? "" : "/" + sub), mode);
        }
        String raw = host.variable(dir.variable()).orElse("");
        boolean judgedNothing = !raw.startsWith("/") || (raw.indexOf('\0') < 0 && Locations.isHomeOrAncestor(Path.of(raw), host.home()));
        if (judgedNothing && unusable.add(dir.variable())) {
            // Declared alone so that magus policy says why it grants nothing: the policy builder
            // judges the value exactly as ToolDir did, so this entry can never grant the whole home.
            add(dir.variable().toLowerCase(java.util.Locale.ROOT), Optional.of(dir.variable()), Optional.empty(),
                    Optional.empty(), AccessMode.R);
        }
        // Any other unusable value (a '$' in it, a list whose first entry is not a location) grants nothing, silently.
        return this;
    }

    /** The entries just declared are created before a run when missing: the tool's own caches. */
    SpellBuilder created(String... entries) {
        creates.addAll(List.of(entries));
        return this;
    }

    /** As {@link #created}, only for a project holding one of {@code markers} (the tool's own files). */
    SpellBuilder createdFor(List<String> markers, String... entries) {
        created(entries);
        for (String e : entries) {
            createdFor.put(e, List.copyOf(markers));
        }
        return this;
    }

    SpellBuilder pass(String... names) {
        passthrough.addAll(List.of(names));
        return this;
    }

    SpellBuilder manager(ShimManager m) {
        managers.add(m);
        return this;
    }

    SpellBuilder registries(String... hosts) {
        registries.addAll(List.of(hosts));
        return this;
    }

    Spell build() {
        Site env = Site.of(layer.label(), "sandbox.env");
        SandboxDecl decl = new SandboxDecl(allow, SandboxEnv.parse(List.copyOf(passthrough), env), layer);
        Set<String> declared = new LinkedHashSet<>();
        allow.forEach(a -> a.name().ifPresent(declared::add));
        creates.retainAll(declared);
        createdFor.keySet().retainAll(creates);
        return new Spell(name, decl, managers, registries, "built-in", creates, createdFor);
    }

    private SpellBuilder add(String entry, Optional<String> env, Optional<Base> base, Optional<String> path, AccessMode mode) {
        Site site = Site.of(layer.label(), "sandbox.allow[" + allow.size() + "]");
        allow.add(new SandboxAllow(Optional.of(entry), env, base, path, mode, layer, site));
        return this;
    }

    /**
     * A tool's home: the value of the variable the tool reads, else its default under home.
     *
     * @param variable   {@code CARGO_HOME}
     * @param homeRelative the default below home ({@code .cargo})
     * @param listFirst  whether the value is a path list whose first entry counts ({@code GOPATH})
     */
    record ToolDir(String variable, String homeRelative, boolean listFirst) {
        static ToolDir of(String variable, String homeRelative) {
            return new ToolDir(variable, homeRelative, false);
        }

        /**
         * The home as a location: {@code ~/...} for the default, the variable's value when it is
         * absolute and not home or above (as the policy builder judges a variable); empty otherwise.
         */
        Optional<String> location(SpellHost host) {
            Optional<String> value = host.variable(variable).map(v -> listFirst ? v.split(":", -1)[0] : v);
            if (value.isEmpty()) {
                return Optional.of("~/" + homeRelative);
            }
            String v = value.get();
            while (v.length() > 1 && v.endsWith("/")) {
                v = v.substring(0, v.length() - 1);
            }
            if (!v.startsWith("/") || v.indexOf('\0') >= 0 || v.indexOf('$') >= 0 || Locations.isHomeOrAncestor(Path.of(v), host.home())) {
                return Optional.empty();
            }
            return Optional.of(v);
        }
    }
}
