package dev.magus.policy;

import dev.magus.env.platform.Platform;
import dev.magus.policy.decl.Base;
import dev.magus.policy.decl.SandboxAllow;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Applies a declaration to a host ("Declaring what a tool needs"): the value of {@code env}
 * when that variable is set, the way the tool itself would read it; otherwise {@code path},
 * under {@code base} when one is given, else absolute or starting with {@code ~}.
 *
 * <p>A location read from a variable or a base that is not absolute, or is home or an
 * ancestor of it, grants nothing: {@code GOCACHE=off} is not a path, and
 * {@code XDG_CACHE_HOME=$HOME} would otherwise hand over the whole home tree. A variable's
 * value is judged here as written; the location itself (and the base it is under) only once
 * {@link PolicyBuilder} has resolved it the way the kernel walks it, because a path is
 * located by joining its parts as written, never by normalizing them: {@code a/lnk/../x} is
 * beside the link's target, not {@code a/x}.
 */
public final class Locations {
    private Locations() {
    }

    /**
     * @throws dev.magus.events.SandboxException MGS2004 when magus.yaml's path names an unset
     *                                           {@code $VAR}, or expands out of its base
     */
    public static Location locate(SandboxAllow allow, HostFacts host, Path workspaceRoot) {
        if (allow.env().isPresent()) {
            String name = allow.env().get();
            Optional<String> value = host.variable(name);
            if (value.isPresent()) {
                return fromVariable(name, value.get(), host).map(p -> (Location) new Location.At(p, "$" + name, Optional.empty()))
                        .orElseGet(() -> nothing(name, value.get(), host));
            }
            if (allow.path().isEmpty()) {
                return new Location.GrantsNothing("$" + name + " is not set on this host and no path is declared");
            }
        }
        String path = allow.expandedPath(host.env()).orElseThrow();
        Path location;
        String how;
        Optional<Path> under = Optional.empty();
        if (allow.base().isPresent()) {
            Base base = allow.base().get();
            Path dir;
            if (base == Base.WORKSPACE) {
                dir = workspaceRoot;
            } else {
                boolean macos = host.os() == Platform.MACOS;
                Optional<String> variable = base.variable(macos);
                Optional<String> value = variable.flatMap(host::variable);
                if (value.isPresent()) {
                    Optional<Path> fromVar = fromVariable(variable.get(), value.get(), host);
                    if (fromVar.isEmpty()) {
                        return nothing(variable.get(), value.get(), host);
                    }
                    dir = fromVar.get();
                    // Judged as written above; once resolved it must not be home or above either.
                    under = Optional.of(dir);
                } else {
                    dir = host.home().resolve(base.homeRelativeDefault(macos).orElseThrow());
                }
            }
            location = dir.resolve(path);
            how = base.spelling() + "/" + path;
        } else if (path.equals("~") || path.startsWith("~/")) {
            location = host.home().resolve(path.substring(1).replaceFirst("^/+", ""));
            how = path;
        } else {
            location = Path.of(path);
            how = allow.path().orElseThrow();
        }
        // Whether it is home or above is known once resolved: ~/lnk/.. may lead anywhere.
        return new Location.At(location, how, under);
    }

    /** A variable's value as a location: absolute, and neither home nor above it. */
    private static Optional<Path> fromVariable(String name, String value, HostFacts host) {
        if (!value.startsWith("/")) {
            return Optional.empty();
        }
        Path p = Path.of(value);
        return isHomeOrAncestor(p, host.home()) ? Optional.empty() : Optional.of(p);
    }

    private static Location nothing(String name, String value, HostFacts host) {
        if (!value.startsWith("/")) {
            return new Location.GrantsNothing("$" + name + "=" + value + " is not an absolute path");
        }
        return new Location.GrantsNothing("$" + name + "=" + value + " is the home directory or an ancestor of it;"
                + " $HOME is never granted as a whole");
    }

    /** Whether {@code p} is {@code home} or contains it (component-wise, so /home/u2 is not an ancestor of /home/u). */
    public static boolean isHomeOrAncestor(Path p, Path home) {
        return home.normalize().startsWith(p.normalize());
    }

    /** {@code ~/x} for paths under home, the path itself otherwise. */
    public static String display(Path p, Path home) {
        if (p.equals(home)) {
            return "~";
        }
        return p.startsWith(home) ? "~/" + home.relativize(p).toString().replace('\\', '/') : p.toString();
    }
}
