package dev.magus.policy;

import dev.magus.events.DetailKey;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.fs.Ruleset;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * What to tell a person about one refused access: it is a known harmless probe, it looks like
 * an attack, or here is the declaration that lets the retry pass. The one place that decides,
 * so the diagnostic, {@code magus explain}, the live view and {@code magus learn} never
 * disagree on whether pasting a hint is safe.
 *
 * <p>Pure: the filesystem is asked only through the two predicates (whether a path exists,
 * whether it is a directory), because a hint has to name a path the policy builder will not
 * skip, and the tests ask about hosts that are not this one.
 */
public sealed interface DenialAdvice {

    /** {@code benign}, {@code attack} or {@code hint}: the value of the {@code class} detail ({@link dev.magus.events.DetailKey#CLASS}). */
    String label();

    /** A runtime's probe every child of it makes and that fails harmlessly (the JVM's, say). */
    record Benign(String why) implements DenialAdvice {
        @Override
        public String label() {
            return "benign";
        }
    }

    /**
     * The access is what a credential theft or a persistence hook does (or asks for a grant
     * so wide it would allow one): the line says so and nothing is suggested.
     */
    record AttackLike(String why) implements DenialAdvice {
        @Override
        public String label() {
            return "attack";
        }
    }

    /**
     * The declaration that allows the access.
     *
     * @param path     where to declare it: an existing directory (or file), never one the rule
     *                 would be skipped for, unless no existing one is safe ({@code missing})
     * @param mode     the mode to declare; for an upgrade, the union with what the rule had
     * @param upgrades the existing rule this widens the mode of, when the access falls inside it
     * @param missing  {@code path} does not exist yet; the hint says to create it first
     */
    record Hint(Path path, AccessMode mode, Optional<Rule> upgrades, boolean missing) implements DenialAdvice {
        public Hint {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(upgrades, "upgrades");
        }

        @Override
        public String label() {
            return "hint";
        }
    }

    /** Credential stores under home: reading one is what a supply-chain payload does first. */
    List<String> CREDENTIAL_STORES = List.of(".ssh", ".aws", ".gnupg", ".config/gh", ".git-credentials", ".npmrc",
            ".pypirc", ".docker/config.json", ".netrc", ".m2/settings.xml", ".m2/settings-security.xml",
            ".gradle/gradle.properties", ".kube", ".azure", ".config/gcloud", ".vault-token", ".password-store",
            ".local/share/keyrings", ".gem/credentials", ".config/git/credentials", ".pgpass", ".my.cnf",
            ".terraform.d/credentials.tfrc.json", ".config/hub", ".yarnrc.yml", ".cargo/credentials",
            ".cargo/credentials.toml", ".config/rclone", ".config/op", ".claude", ".claude.json", ".cursor", ".codex",
            ".gemini", ".config/github-copilot");

    /**
     * The credential stores ({@link #CREDENTIAL_STORES}, as {@code ~/...}) that a grant of
     * {@code granted} reaches: a store inside it ({@code ~/.config} holds {@code ~/.config/gh}),
     * or the store it lies in ({@code ~/.ssh/authorized_keys}). Present or not: a grant outlives
     * what is there today.
     */
    static List<String> credentialStores(Path granted, Path home) {
        Path g = granted.normalize();
        List<String> reached = new java.util.ArrayList<>();
        for (String e : CREDENTIAL_STORES) {
            Path store = home.resolve(e);
            if (store.startsWith(g) || g.startsWith(store)) {
                reached.add("~/" + e);
            }
        }
        return reached;
    }

    /**
     * Tool caches and installs the built-in spells know, under home: a hint for a path inside one
     * names the root ({@code ~/.m2/repository}), not the one artifact directory the tool asked for
     * first, so that one grant lets the whole build through.
     */
    List<String> TOOL_CACHES = List.of(".m2/repository", ".gradle/caches", ".gradle/wrapper/dists",
            ".npm/_cacache", ".npm", ".pnpm-store", ".yarn/berry/cache", ".bun/install/cache", ".cargo/registry",
            ".cargo/git", ".rustup/toolchains", ".rustup/downloads", "go/pkg/mod", ".nvm/versions", ".pyenv/versions",
            ".sdkman/candidates", ".asdf/installs", ".local/share/mise/installs", ".deno", ".ivy2/cache",
            ".sbt/boot", ".coursier", ".conan2/p", ".nuget/packages", ".stack", ".cabal/packages", ".ghcup/ghc");

    /** Files a shell (or a desktop session) runs at the next login: a write there is persistence. */
    List<String> STARTUP_FILES = List.of(".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
            ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".mkshrc",
            ".config/fish", ".xprofile", ".xinitrc", ".xsessionrc", ".config/autostart", ".config/environment.d",
            ".pam_environment", ".config/systemd/user", ".bash_aliases", ".config/systemd", ".local/share/systemd");

    /** Configuration git follows later (aliases, hooks paths): writable means code run outside the sandbox. */
    List<String> WRITE_ONLY_SENSITIVE = List.of(".gitconfig", ".config/git/config");

    /**
     * What magus keeps from every run (its default state dir, the server's socket dir) and,
     * for a write, what an unconfined program later runs from (binaries on PATH, docker's
     * plugins, pip's config): a grant there lets one run weaken the next.
     */
    List<String> MAGUS_OWN = List.of(".local/state/magus", ".cache/magus-run");
    List<String> RUN_LATER = List.of(".local/bin", "bin", ".docker/cli-plugins", ".config/pip", ".pip");

    /**
     * What a toolchain runs or obeys later, outside any sandbox, beside the caches its spell
     * grants: rustup's {@code ~/.cargo/env} (sourced by the shell's startup files), the
     * binaries {@code cargo install} puts on PATH (the rust spell runs them, never writes them;
     * the go spell's {@code GOBIN} is another matter), cargo's and go's own
     * configuration ({@code build.rustc-wrapper}, {@code GOFLAGS=-toolexec}). Only a write is
     * refused: running {@code ~/.cargo/bin/cargo} is what the rust spell grants.
     */
    List<String> TOOL_RUN_LATER = List.of(".cargo/env", ".cargo/bin", ".cargo/config", ".cargo/config.toml",
            ".config/go/env");

    /** The core's devices; anything else under /dev is never suggested. */
    Set<String> DEVICES = Set.of("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty");

    Pattern JVM_PERF_DATA = Pattern.compile("hsperfdata_[^/]*");
    /** The server's last-resort socket dir, {@code /tmp/magus-<uid>}: a number, never a word. */
    Pattern SOCKET_FALLBACK_DIR = Pattern.compile("magus-\\d+");
    Pattern PROC_PID = Pattern.compile("/proc/(?:\\d+|self|thread-self)(?:/task/\\d+)?");

    /**
     * @param op       the refused access
     * @param resolved the refused path, resolved
     * @param home     the user's home
     * @param rules    the policy's rules, for the rule a hint should widen
     * @param exists   whether a path exists (without following a final link)
     * @param isDir    whether a path is a directory
     */
    static DenialAdvice classify(Access op, Path resolved, Path home, Ruleset rules, Predicate<Path> exists,
            Predicate<Path> isDir) {
        Optional<String> benign = benign(op, resolved);
        if (benign.isPresent()) {
            return new Benign(benign.get());
        }
        Optional<String> attack = attackLike(op, resolved, home);
        if (attack.isPresent()) {
            return new AttackLike(attack.get());
        }
        Optional<String> toolchain = toolchainWrite(op, resolved, home, rules);
        if (toolchain.isPresent()) {
            return new AttackLike(toolchain.get());
        }
        AccessMode needed = needed(op);
        Optional<Hint> upgrade = upgrade(op, resolved, home, rules, needed, exists, isDir);
        if (upgrade.isPresent()) {
            return upgrade.get();
        }
        Path at;
        if (isDir.test(resolved)) {
            at = resolved;
        } else if (exists.test(resolved)) {
            at = resolved.getParent() == null ? resolved : resolved.getParent();
        } else {
            // A rule for a missing path is skipped: the nearest directory that exists.
            at = resolved.getParent();
            while (at != null && !isDir.test(at)) {
                at = at.getParent();
            }
            if (at == null) {
                at = resolved;
            }
        }
        // Inside a tool's cache: its root, which the build reads and writes all over.
        at = cacheRoot(at, home).orElse(at);
        // Too wide (home, /, a directory holding a credential store): step back down towards the path.
        while (!at.equals(resolved) && unsafeToGrant(at, op, home, exists)) {
            at = at.resolve(at.relativize(resolved).getName(0));
        }
        if (unsafeToGrant(at, op, home, exists)) {
            return new AttackLike("no declaration narrower than " + Locations.display(at, home) + " exists,"
                    + " and that one would grant a credential store, a startup file or what runs later");
        }
        return new Hint(at, needed, Optional.empty(), !exists.test(at));
    }

    /** The {@link #TOOL_CACHES} root that holds {@code p}, if any. */
    private static Optional<Path> cacheRoot(Path p, Path home) {
        for (String c : TOOL_CACHES) {
            Path root = home.resolve(c);
            if (p.startsWith(root)) {
                return Optional.of(root);
            }
        }
        return Optional.empty();
    }

    /** A known harmless probe, and why it is harmless. */
    static Optional<String> benign(Access op, Path resolved) {
        Path parent = resolved.getParent();
        if (parent != null && PROC_PID.matcher(parent.toString()).matches()
                && resolved.getFileName().toString().equals("coredump_filter")) {
            return Optional.of("the JVM sets its own core-dump filter at start; it runs the same without");
        }
        for (Path p = resolved; p != null && p.getFileName() != null; p = p.getParent()) {
            if (JVM_PERF_DATA.matcher(p.getFileName().toString()).matches()) {
                return Optional.of("the JVM's performance-data file for jps/jstat; it runs the same without"
                        + " (-XX:-UsePerfData stops the probe)");
            }
        }
        return Optional.empty();
    }

    /** Why this access looks like an attack, when it does. */
    static Optional<String> attackLike(Access op, Path resolved, Path home) {
        if (resolved.getNameCount() == 0) {
            return Optional.of("it asks for / itself: no build needs the whole filesystem");
        }
        if (Locations.isHomeOrAncestor(resolved, home)) {
            return Optional.of("it asks for the home directory (or above it), which holds every credential"
                    + " store; $HOME is never granted as a whole");
        }
        Optional<String> entry = sensitiveEntry(resolved, home, op);
        if (entry.isPresent()) {
            return entry;
        }
        if (resolved.startsWith("/run/user") && resolved.getNameCount() >= 4 && resolved.getName(3).toString().equals("magus")
                || resolved.getNameCount() >= 2 && resolved.startsWith("/tmp")
                        && SOCKET_FALLBACK_DIR.matcher(resolved.getName(1).toString()).matches()) {
            return Optional.of("it is the magus server's socket dir, which holds its token: a run that reads it could"
                    + " start unconfined runs");
        }
        if (resolved.startsWith("/etc")) {
            return Optional.of("a build writes nothing under /etc; a planted file there is read by the system");
        }
        if (resolved.startsWith("/proc") || resolved.startsWith("/sys")) {
            return Optional.of("it reaches into the kernel's view of processes and devices ("
                    + resolved.getName(0) + "), which no declaration should widen");
        }
        if (resolved.startsWith("/dev") && !DEVICES.contains(resolved.toString())) {
            return Optional.of("a device beyond the ones every tool uses");
        }
        return Optional.empty();
    }

    private static Optional<String> sensitiveEntry(Path resolved, Path home, Access op) {
        if (!resolved.startsWith(home)) {
            return Optional.empty();
        }
        for (String e : CREDENTIAL_STORES) {
            if (resolved.startsWith(home.resolve(e))) {
                return Optional.of("~/" + e + " is a credential store: reading it is the first step of a"
                        + " credential theft");
            }
        }
        for (String e : STARTUP_FILES) {
            if (resolved.startsWith(home.resolve(e))) {
                return Optional.of("~/" + e + " runs at the next login: " + (op == Access.READ
                        ? "no build reads it" : "writing it is how a payload persists"));
            }
        }
        for (String e : MAGUS_OWN) {
            if (resolved.startsWith(home.resolve(e))) {
                return Optional.of("~/" + e + " is where magus keeps its state or its server's token: a run that"
                        + " reaches it could weaken the next run");
            }
        }
        if (op != Access.READ) {
            for (String e : RUN_LATER) {
                if (resolved.startsWith(home.resolve(e))) {
                    return Optional.of("~/" + e + " holds what you run later, outside any sandbox: writing it"
                            + " is how a payload persists");
                }
            }
            for (String e : WRITE_ONLY_SENSITIVE) {
                if (resolved.startsWith(home.resolve(e))) {
                    return Optional.of("~/" + e + " is configuration git follows later, outside any sandbox");
                }
            }
        }
        if (op == Access.WRITE) {
            for (String e : TOOL_RUN_LATER) {
                if (resolved.startsWith(home.resolve(e))) {
                    return Optional.of("~/" + e + " is run or obeyed later by its toolchain, outside any sandbox:"
                            + " writing it is how a payload persists");
                }
            }
        }
        return Optional.empty();
    }

    /**
     * A write inside a toolchain a spell grants read-and-run ({@code ~/.pyenv}, {@code ~/.rustup},
     * {@code JAVA_HOME}, {@code GOROOT}): widening it to {@code rwx} would let one run rewrite what
     * every later run, confined or not, executes (a {@code .pth} file in site-packages runs at each
     * Python start). Nothing is suggested; the build belongs in the workspace.
     */
    private static Optional<String> toolchainWrite(Access op, Path resolved, Path home, Ruleset rules) {
        if (op != Access.WRITE) {
            return Optional.empty();
        }
        return rules.nearest(resolved, op)
                .filter(r -> resolved.startsWith(r.path()) && r.mode().has(Access.EXEC) && !r.mode().has(Access.WRITE)
                        && r.origin().startsWith("spell:"))
                .map(r -> Locations.display(r.path(), home) + " is a toolchain " + r.origin() + " grants read-and-run only:"
                        + " what a run writes there runs later, outside any sandbox; install into the workspace instead"
                        + " (a virtualenv, a local prefix)");
    }

    /**
     * Whether granting {@code op} on all of {@code dir} would hand over something sensitive,
     * present or not: a pasted hint stays in {@code magus.yaml}, so {@code ~/.config ro} on a
     * host without {@code gh} would read its token once {@code gh auth login} wrote it, and a
     * write grant creates what is not there yet ({@code ~/.m2 rw} lets a run plant
     * {@code settings.xml}, {@code ~/.config rw} a fish config or pip's {@code pip.conf}).
     */
    private static boolean unsafeToGrant(Path dir, Access op, Path home, Predicate<Path> exists) {
        if (attackLike(op, dir, home).isPresent()) {
            return true;
        }
        if (!dir.startsWith(home)) {
            return false;
        }
        for (String e : CREDENTIAL_STORES) {
            if (home.resolve(e).startsWith(dir)) {
                return true;
            }
        }
        for (String e : STARTUP_FILES) {
            Path p = home.resolve(e);
            if (p.startsWith(dir) && (op == Access.WRITE || op == Access.EXEC && exists.test(p))) {
                return true;
            }
        }
        if (op == Access.WRITE) {
            for (List<String> entries : List.of(MAGUS_OWN, RUN_LATER, WRITE_ONLY_SENSITIVE, TOOL_RUN_LATER)) {
                for (String e : entries) {
                    if (home.resolve(e).startsWith(dir)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * The rule to widen instead of a new, narrower one: a declared rule (never a core one such
     * as {@code /usr rx}) that contains the path and lacks only the bit. Without it a hint for
     * {@code ~/.m2/repository/org/apache/commons rw} fixes one directory of a tree the user had
     * already declared as {@code ~/.m2 ro}. When widening all of it would grant a credential
     * store that sits inside, the hint widens the child on the way to the path instead. A
     * writable rule is never made executable: a directory a build writes and runs from is where
     * a dropped binary runs.
     */
    private static Optional<Hint> upgrade(Access op, Path resolved, Path home, Ruleset rules, AccessMode needed,
            Predicate<Path> exists, Predicate<Path> isDir) {
        Optional<Rule> nearest = rules.nearest(resolved, op);
        if (nearest.isEmpty()) {
            return Optional.empty();
        }
        Rule r = nearest.get();
        if (r.origin().startsWith("core") || !resolved.startsWith(r.path()) || r.mode().has(op)
                || op == Access.EXEC && r.mode().has(Access.WRITE)
                || resolved.equals(r.path()) && !isDir.test(resolved)) {
            return Optional.empty();
        }
        AccessMode mode = r.mode().union(needed);
        if (!unsafeToGrant(r.path(), op, home, exists)) {
            return Optional.of(new Hint(r.path(), mode, Optional.of(r), false));
        }
        if (resolved.equals(r.path())) {
            return Optional.empty();
        }
        Path child = r.path().resolve(r.path().relativize(resolved).getName(0));
        if (isDir.test(child) && !unsafeToGrant(child, op, home, exists)) {
            return Optional.of(new Hint(child, mode, Optional.empty(), false));
        }
        return Optional.empty();
    }

    private static AccessMode needed(Access op) {
        return switch (op) {
            case READ -> AccessMode.R;
            case WRITE -> AccessMode.RW;
            case EXEC -> AccessMode.RX;
        };
    }
}
