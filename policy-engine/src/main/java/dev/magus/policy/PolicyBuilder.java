package dev.magus.policy;

import dev.magus.env.platform.Platform;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.git.GitIndirections;
import dev.magus.policy.decl.MergedDecl;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.fs.Ruleset;
import dev.magus.events.Mode;
import dev.magus.policy.path.Filesystem;
import dev.magus.policy.path.PathResolver;
import dev.magus.policy.path.Resolution;
import dev.magus.policy.path.Traced;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Builds a run's {@link Policy}: the core footprint (on Linux), then the workspace's, the
 * spells' and the target's declarations. Every rule path is resolved as the kernel walks it, so
 * rules and requests compare as one string; a path missing on the host is skipped, as the kernel
 * layer would, and noted for {@code magus policy}. The core (the OS, the workspace, magus's own
 * cache, installation and private temp dir, the git dirs) knows no toolchain and never grants
 * {@code $HOME}, {@code /tmp}, {@code /var/tmp}, {@code $TMPDIR}, {@code /opt} or {@code /run}.
 *
 * <p>The next run's policy is built from what a run may have written, so no location a confined
 * child could redirect is believed: git dirs only as {@link GitDirs} accepts them, and no rule
 * whose resolution goes through a link inside a writable location to outside it. Each refusal
 * is a {@link PolicyNote}, never an error. The host is known only through {@link HostFacts} and
 * a {@link Filesystem}, so any host's policy can be built from a tree in memory.
 */
public final class PolicyBuilder {
    /** The operating system's programs and libraries. */
    static final List<String> LINUX_SYSTEM_RX = List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32");
    /** Read-only: resolver, users, certificates; runtimes read their own process and cgroup limits. */
    static final List<String> LINUX_SYSTEM_R = List.of("/etc", "/proc", "/sys");
    /**
     * macOS has no kernel layer; its binding checks still need the system's programs,
     * frameworks and configuration ({@code /etc} is a link into {@code /private/etc}).
     */
    static final List<String> MACOS_SYSTEM_RX = List.of("/usr", "/bin", "/sbin", "/System", "/Library");
    static final List<String> MACOS_SYSTEM_R = List.of("/etc");
    /** Devices every tool expects; {@code /dev/pts} only for an explicitly interactive run, so not here. */
    static final List<String> DEVICES_RW = List.of("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty");

    static final String INSTALLATION = "core:installation";

    /** The operating system's part of the core, the same for every run: made once, not per policy. */
    private static final List<Candidate> LINUX_SYSTEM = system(LINUX_SYSTEM_RX, LINUX_SYSTEM_R);
    private static final List<Candidate> MACOS_SYSTEM = system(MACOS_SYSTEM_RX, MACOS_SYSTEM_R);

    private static List<Candidate> system(List<String> rx, List<String> r) {
        List<Candidate> out = new ArrayList<>();
        rx.forEach(p -> out.add(new Candidate(Path.of(p), AccessMode.RX, "core:" + p)));
        r.forEach(p -> out.add(new Candidate(Path.of(p), AccessMode.R, "core:" + p)));
        DEVICES_RW.forEach(p -> out.add(new Candidate(Path.of(p), AccessMode.RW, "core:" + p)));
        return List.copyOf(out);
    }

    private final HostFacts host;
    private final PathResolver resolver;

    /** A builder for {@code host} on the real filesystem. */
    public PolicyBuilder(HostFacts host) {
        this(host, Filesystem.real());
    }

    /** A builder for {@code host} whose paths are looked up in {@code fs}. */
    public PolicyBuilder(HostFacts host, Filesystem fs) {
        this.host = Objects.requireNonNull(host, "host");
        this.resolver = new PathResolver(fs);
    }

    /**
     * The policy of a run, or {@link PolicyOrOff#off()} for mode off (nothing is built then,
     * so a workspace declaration is not evaluated either).
     *
     * @throws dev.magus.events.SandboxException MGS2004 when a declaration cannot be honored on
     *                                           this host (an unset {@code $VAR} in magus.yaml)
     */
    public PolicyOrOff build(Mode mode, Path workspaceRoot, MergedDecl declared) {
        return mode == Mode.OFF ? PolicyOrOff.off() : policy(mode, workspaceRoot, declared);
    }

    /** {@link #build(Mode, Path, MergedDecl)} of the layers, merged in order. */
    public PolicyOrOff build(Mode mode, Path workspaceRoot, SandboxDecl workspace, List<SandboxDecl> spells,
            Optional<SandboxDecl> target) {
        return build(mode, workspaceRoot, MergedDecl.merge(workspace, spells, target));
    }

    /**
     * The policy for a mode other than off.
     *
     * @throws IllegalArgumentException for mode off, or a workspace root that does not exist
     */
    public Policy policy(Mode mode, Path workspaceRoot, MergedDecl declared) {
        if (mode == Mode.OFF) {
            throw new IllegalArgumentException("mode off has no policy");
        }
        // Each distinct path once per build (the root is resolved here and traced again as a rule).
        BuildPaths paths = new BuildPaths(resolver);
        Path root = resolveExisting(paths, workspaceRoot)
                .orElseThrow(() -> new IllegalArgumentException("workspace root does not exist: " + workspaceRoot));
        Path home = paths.resolve(host.home()).resolvedPath().orElse(host.home());
        refuseBroadRoot(paths, root, home);
        List<PolicyNote> notes = new ArrayList<>();
        GitDirs.Located located = GitDirs.locate(root, home, resolver);
        GitDirs.Found git = located.found();
        notes.addAll(git.notes());
        List<Path> gitDirs = git.dirs();

        List<Candidate> candidates = new ArrayList<>(core(root, gitDirs));
        for (SandboxAllow a : declared.allow()) {
            Location location = Locations.locate(a, host, root);
            if (location instanceof Location.GrantsNothing g) {
                notes.add(new PolicyNote(PolicyNote.Kind.GRANTS_NOTHING, a.origin(), a.site().key(), g.why()));
                continue;
            }
            Location.At at = (Location.At) location;
            Optional<Path> homeBase = at.base().filter(b -> paths.resolve(b).resolvedPath()
                    .filter(real -> Locations.isHomeOrAncestor(real, home)).isPresent());
            if (homeBase.isPresent()) {
                notes.add(new PolicyNote(PolicyNote.Kind.GRANTS_NOTHING, a.origin(), at.path().toString(),
                        "the base of " + at.how() + ", " + homeBase.get() + ", resolves to the home directory or an"
                                + " ancestor of it; $HOME is never granted as a whole"));
                continue;
            }
            candidates.add(new Candidate(at.path(), a.mode(), a.origin()));
        }

        // Where a run can write: every location granted for writing that is not home or above.
        // One pass: a location refused below for a planted link still counts, which can only
        // refuse more, never grant more.
        List<Traced> traced = new ArrayList<>(candidates.size());
        List<Optional<String>> homeOrAbove = new ArrayList<>(candidates.size());
        List<Path> writable = new ArrayList<>();
        for (Candidate c : candidates) {
            Traced t = paths.trace(c.path());
            Optional<String> above = homeOrAbove(c, t.resolution(), home);
            traced.add(t);
            homeOrAbove.add(above);
            if (c.mode().has(Access.WRITE) && t.resolution().existing() && above.isEmpty()) {
                writable.add(t.resolution().resolvedPath().orElseThrow());
            }
        }
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < candidates.size(); i++) {
            Candidate c = candidates.get(i);
            Traced t = traced.get(i);
            Optional<String> refused = homeOrAbove.get(i).or(() -> magusOwn(paths, c, t.resolution(), home))
                    .or(() -> planted(c, t, writable, home));
            if (refused.isPresent()) {
                notes.add(new PolicyNote(PolicyNote.Kind.GRANTS_NOTHING, c.origin(), c.path().toString(), refused.get()));
                continue;
            }
            grant(c, t.resolution(), rules, notes);
        }
        return new Policy(mode, root, home, Ruleset.of(rules), declared.passthrough(),
                controlFiles(paths, root, home, located), notes, resolver, List.of(), declared.network());
    }

    /**
     * The control files of the workspace: the fixed list, the git dirs, and what the
     * repository's configs name ({@link GitIndirections}), each resolved the way the kernel
     * walks it so that a check and the audit compare like with like.
     */
    private ControlFiles controlFiles(BuildPaths paths, Path root, Path home, GitDirs.Located located) {
        GitDirs.Found git = located.found();
        ControlFiles files = ControlFiles.of(root, git.dirs()).withGitDirProbe(GitDirs.probe(resolver.filesystem()));
        if (git.dirs().isEmpty()) {
            return files;
        }
        Optional<Path> xdgConfig = Optional.ofNullable(host.env().get("XDG_CONFIG_HOME")).filter(v -> v.startsWith("/"))
                .map(Path::of);
        GitIndirections.Found named = GitIndirections.of(git.dirs(), located.checkout().orElse(root), home, xdgConfig,
                resolver.filesystem());
        if (named.hooksDir().isEmpty() && named.included().isEmpty()) {
            return files;
        }
        return files.withNamed(named.hooksDir().map(p -> resolvedOrAsIs(paths, p)),
                named.included().stream().map(p -> resolvedOrAsIs(paths, p)).toList());
    }

    private static Path resolvedOrAsIs(BuildPaths paths, Path p) {
        return paths.resolve(p).resolvedPath().orElse(p);
    }

    /**
     * Why a location that is not the operating system's resolves to home or above, if it
     * does: the check runs on where the path leads, so a link to {@code ~} hands over nothing
     * either.
     */
    private static Optional<String> homeOrAbove(Candidate c, Resolution r, Path home) {
        if (c.origin().startsWith("core:/") || r.resolvedPath().filter(p -> Locations.isHomeOrAncestor(p, home)).isEmpty()) {
            return Optional.empty();
        }
        Path real = r.resolvedPath().orElseThrow();
        String where = real.equals(c.path()) ? c.path().toString() : c.path() + " resolves to " + Locations.display(real, home) + ", which";
        return Optional.of(where + " is the home directory or an ancestor of it; $HOME is never granted as a whole");
    }

    /**
     * Why a declared location reaches what magus keeps from every run, if it does: its state
     * dir or the server's socket dir (in either direction: {@code ~/.local rw} holds the state
     * dir), or, for a write, its own installation, which the next unconfined magus loads.
     * Landlock cannot carve a hole in a grant, so such a location grants nothing at all.
     */
    private Optional<String> magusOwn(BuildPaths paths, Candidate c, Resolution r, Path home) {
        if (c.origin().startsWith("core:") || r.resolvedPath().isEmpty()) {
            return Optional.empty();
        }
        Path real = r.resolvedPath().orElseThrow();
        for (Path own : host.magusPrivateDirs()) {
            Path p = paths.resolve(own).resolvedPath().orElse(own);
            if (real.startsWith(p) || p.startsWith(real)) {
                return Optional.of(c.path() + " reaches " + Locations.display(p, home) + ", where magus keeps its state or"
                        + " its server's socket and token; no run may read or write there, so this grants nothing:"
                        + " declare a directory beside it instead");
            }
        }
        if (c.mode().has(Access.WRITE)) {
            for (Path inst : host.installation()) {
                Path p = paths.resolve(inst).resolvedPath().orElse(inst);
                if (real.startsWith(p) || p.startsWith(real)) {
                    return Optional.of(c.path() + " would make " + Locations.display(p, home) + ", magus's own installation,"
                            + " writable, and the next magus runs what is there unconfined; this grants nothing");
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Why {@code c} would be granted where a confined run pointed it, if so: its resolution
     * goes through a symbolic link that lies inside a location the run could write (the
     * workspace, the cache, a git dir, a declared write grant) and ends outside that location.
     * Such a link may have been planted by the previous run ({@code out -> /etc} replacing the
     * workspace's {@code out}), and a run must never widen the next one. A link within one
     * writable location, or whose target is declared by its own path, grants as usual.
     */
    private static Optional<String> planted(Candidate c, Traced t, List<Path> writable, Path home) {
        Optional<Path> real = t.resolution().resolvedPath();
        if (real.isEmpty()) {
            return Optional.empty();
        }
        for (Path link : t.links()) {
            for (Path area : writable) {
                if (link.startsWith(area) && !real.get().startsWith(area)) {
                    return Optional.of(c.path() + " goes through " + Locations.display(link, home) + ", a symbolic link inside "
                            + Locations.display(area, home) + " (which a confined run can write), to "
                            + Locations.display(real.get(), home) + " outside it; a link a run could have planted never"
                            + " widens the next run: declare " + Locations.display(real.get(), home) + " itself if it is meant");
                }
            }
        }
        return Optional.empty();
    }

    /** The core footprint of this host for {@code workspaceRoot}, unresolved: what {@code magus policy} lists as "core". */
    List<Candidate> core(Path root, List<Path> gitDirs) {
        List<Candidate> out = new ArrayList<>();
        out.addAll(host.os() == Platform.MACOS ? MACOS_SYSTEM : LINUX_SYSTEM);
        out.add(new Candidate(root, AccessMode.RWX, "core:workspace"));
        out.add(new Candidate(host.magusCacheDir(), AccessMode.RW, "core:cache"));
        for (Path p : host.installation()) {
            out.add(new Candidate(p, AccessMode.RX, INSTALLATION));
        }
        out.add(new Candidate(host.privateTemp(), AccessMode.RWX, "core:temp"));
        for (Path g : gitDirs) {
            out.add(new Candidate(g, AccessMode.RW, "core:git"));
        }
        return out;
    }

    /**
     * The workspace is granted rwx as a whole, so it must not be a tree the specification keeps
     * out: the home directory or an ancestor of it ("$HOME is never granted as a whole"), or a
     * shared temp dir or an ancestor of one (they hold ssh-agent, gpg and docker sockets). That
     * happens when magus runs from such a directory without a magus.yaml below it.
     */
    private void refuseBroadRoot(BuildPaths paths, Path root, Path home) {
        String why = null;
        if (Locations.isHomeOrAncestor(root, home)) {
            why = root.equals(home) ? "your home directory" : "an ancestor of your home directory";
        } else {
            List<Path> shared = new ArrayList<>(List.of(Path.of("/tmp"), Path.of("/var/tmp")));
            host.variable("TMPDIR").filter(v -> v.startsWith("/")).map(Path::of).ifPresent(shared::add);
            for (Path t : shared) {
                Optional<Path> real = resolveExisting(paths, t);
                if (real.isPresent() && real.get().startsWith(root)) {
                    why = root.equals(real.get()) ? "the shared temp dir " + t : "an ancestor of the shared temp dir " + t;
                    break;
                }
            }
        }
        if (why != null) {
            throw new SandboxException(Diagnostic.of(Code.MGS2004,
                    "the workspace root " + Locations.display(root, home) + " is " + why + ", which a sandbox never"
                            + " grants as a whole; run magus from a project directory, or put a magus.yaml at the project's root",
                    root.toString(), Operation.NONE, Layer.POLICY, "workspace root"));
        }
    }

    private static void grant(Candidate c, Resolution r, List<Rule> rules, List<PolicyNote> notes) {
        if (r instanceof Resolution.TooManyLinks loop) {
            notes.add(new PolicyNote(PolicyNote.Kind.SKIPPED, c.origin(), c.path().toString(),
                    c.path() + ": too many symbolic links (gave up at " + loop.reached() + ")"));
        } else if (!r.existing()) {
            notes.add(new PolicyNote(PolicyNote.Kind.SKIPPED, c.origin(), c.path().toString(),
                    c.path() + " does not exist on this host"));
        } else {
            rules.add(new Rule(r.resolvedPath().orElseThrow(), c.mode(), c.origin()));
        }
    }

    private static Optional<Path> resolveExisting(BuildPaths paths, Path p) {
        Resolution r = paths.resolve(p.toAbsolutePath());
        return r.existing() ? r.resolvedPath() : Optional.empty();
    }

    /** A rule before resolution. */
    record Candidate(Path path, AccessMode mode, String origin) {
    }
}
