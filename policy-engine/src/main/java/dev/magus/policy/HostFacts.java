package dev.magus.policy;

import dev.magus.env.platform.Platform;
import dev.magus.events.MagusEnv;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What the policy builder knows of the host, as a value (it never reads the environment or
 * {@code user.home} itself), so a test builds the policy of a fake host in a temp directory.
 *
 * @param env          the host environment as magus sees it (not the child's scrubbed one)
 * @param home         the user's home directory
 * @param uid          the user id; -1 when the platform has none
 * @param os           which base table and core footprint apply
 * @param userCacheDir the platform's user cache dir ({@code $XDG_CACHE_HOME} else {@code ~/.cache}
 *                     on Linux, {@code ~/Library/Caches} on macOS)
 * @param installation magus's launcher, jar and native library dirs and its JDK, granted rx so a
 *                     nested magus can start
 * @param privateTemp  the run's private temp dir (0700), the children's TMPDIR
 */
public record HostFacts(
        Map<String, String> env,
        Path home,
        long uid,
        Platform os,
        Path userCacheDir,
        List<Path> installation,
        Path privateTemp) {

    public HostFacts {
        env = Map.copyOf(env);
        Objects.requireNonNull(os, "os");
        home = absolute(home, "home");
        userCacheDir = absolute(userCacheDir, "userCacheDir");
        installation = List.copyOf(installation);
        installation.forEach(p -> absolute(p, "installation"));
        privateTemp = absolute(privateTemp, "privateTemp");
    }

    private static Path absolute(Path p, String what) {
        Objects.requireNonNull(p, what);
        if (!p.isAbsolute()) {
            throw new IllegalArgumentException(what + " must be absolute: " + p);
        }
        return p.normalize();
    }

    /** A host whose user cache dir follows the platform rule for {@code env} and {@code home}. */
    public static HostFacts of(Map<String, String> env, Path home, long uid, Platform os, List<Path> installation, Path privateTemp) {
        return new HostFacts(env, home, uid, os, defaultUserCacheDir(env, home, os), installation, privateTemp);
    }

    /** A Linux host: the usual shape of a test's fake host. */
    public static HostFacts linux(Map<String, String> env, Path home, List<Path> installation, Path privateTemp) {
        return of(env, home, 1000, Platform.LINUX, installation, privateTemp);
    }

    /**
     * This process's host. The installation is read from the system properties bin/magus sets
     * ({@code magus.launcher}, and {@code magus.launcher.jvm}, the script it runs to start the JVM), the class path and JNA's native directory, and {@code java.home}.
     */
    public static HostFacts fromSystem(Path privateTemp) {
        // A byte that is not UTF-8 in a variable reaches the child as itself.
        Map<String, String> env = dev.magus.events.RawBytes.environmentOfThisProcess(System.getenv());
        // $HOME is the home every tool of the user reads, so it is where the credentials kept
        // out live; Java's user.home comes from the password file and is only the fallback.
        Path home = Optional.ofNullable(env.get("HOME")).filter(h -> h.startsWith("/")).map(Path::of)
                .orElse(Path.of(System.getProperty("user.home")).toAbsolutePath());
        Platform os = Platform.current();
        return of(env, home, currentUid(), os, installationFromSystem(), privateTemp);
    }

    /**
     * Where magus keeps its cache: {@code $XDG_CACHE_HOME/magus} when that is absolute, else
     * {@code <user cache dir>/magus}.
     */
    public Path magusCacheDir() {
        return variable("XDG_CACHE_HOME").filter(v -> v.startsWith("/")).map(Path::of)
                .orElse(userCacheDir).resolve("magus").normalize();
    }

    /**
     * magus's state dir: {@code $MAGUS_STATE_DIR} (carried to a nested magus), else
     * {@code $XDG_STATE_HOME/magus}, else {@code ~/.local/state/magus}; each only when absolute.
     */
    public static Path stateDirOf(Map<String, String> env, Path home) {
        String carried = env.get(MagusEnv.STATE_DIR);
        String xdg = env.get("XDG_STATE_HOME");
        StateDirMemo last = lastStateDir;
        if (last != null && Objects.equals(last.carried(), carried) && Objects.equals(last.xdg(), xdg)
                && Objects.equals(last.home(), home)) {
            return last.dir();
        }
        Path dir;
        if (carried != null && carried.startsWith("/")) {
            dir = Path.of(carried).normalize();
        } else {
            Path base = xdg != null && xdg.startsWith("/") ? Path.of(xdg) : home.resolve(".local/state");
            dir = base.resolve("magus").normalize();
        }
        lastStateDir = new StateDirMemo(carried, xdg, home, dir);
        return dir;
    }

    /**
     * The last answer of {@link #stateDirOf} and everything it was computed from (the two
     * variables and the home), which a server asks for several times per run with the same three.
     */
    private record StateDirMemo(String carried, String xdg, Path home, Path dir) {
        @Override
        public String toString() {
            return "StateDirMemo[" + dir + "]";
        }
    }

    private static volatile StateDirMemo lastStateDir;

    /**
     * Where magus keeps what no run may reach: its state dir (lease markers, the job store, the
     * audit's walks, the cached git config) and every place the server's socket and token can
     * live ({@code $XDG_RUNTIME_DIR/magus}, {@code <cache>/magus-run}, {@code /tmp/magus-<uid>}, and
     * the dir of {@code $MAGUS_SERVER_ADDRESS}, the socket of the server a forwarded run runs in).
     * A declared grant over any of them would let one run weaken the next, or reach the server.
     */
    public List<Path> magusPrivateDirs() {
        List<Path> out = new ArrayList<>();
        out.add(stateDirOf(env, home));
        variable("XDG_RUNTIME_DIR").filter(v -> v.startsWith("/")).ifPresent(v -> out.add(Path.of(v, "magus")));
        variable("XDG_CACHE_HOME").filter(v -> v.startsWith("/")).ifPresent(v -> out.add(Path.of(v, "magus-run")));
        out.add(home.resolve(".cache/magus-run"));
        out.add(userCacheDir.resolve("magus-run"));
        out.add(Path.of("/tmp", "magus-" + uid));
        // A forwarded run's host names the server it runs in: that server's socket dir, wherever
        // its own environment put it, is kept from the run too.
        variable(MagusEnv.SERVER_ADDRESS).filter(v -> v.startsWith("/")).map(Path::of).map(Path::getParent)
                .ifPresent(out::add);
        return out.stream().map(Path::normalize).distinct().toList();
    }

    /** A variable that is set and not empty: an empty value is how tools spell "use the default". */
    public Optional<String> variable(String name) {
        return Optional.ofNullable(env.get(name)).filter(v -> !v.isEmpty());
    }

    private static Path defaultUserCacheDir(Map<String, String> env, Path home, Platform os) {
        if (os == Platform.MACOS) {
            return home.resolve("Library/Caches");
        }
        String xdg = env.getOrDefault("XDG_CACHE_HOME", "");
        return xdg.startsWith("/") ? Path.of(xdg) : home.resolve(".cache");
    }

    private static long currentUid() {
        try {
            // /proc/self belongs to the process's own user; elsewhere there is no cheap answer.
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return ((Number) uid).longValue();
        } catch (Exception e) {
            return -1;
        }
    }

    private static List<Path> installationFromSystem() {
        Set<Path> out = new LinkedHashSet<>();
        Optional.ofNullable(System.getProperty("magus.launcher")).filter(s -> !s.isEmpty()).map(Path::of).ifPresent(out::add);
        // The launcher's other half, which it runs for everything but a forwarded run (libexec/magus-jvm).
        Optional.ofNullable(System.getProperty("magus.launcher.jvm")).filter(s -> !s.isEmpty()).map(Path::of).ifPresent(out::add);
        for (String entry : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            Path p = Path.of(entry).toAbsolutePath();
            // A jar is granted with its directory (lib/ holds the rest); a classes directory as itself.
            out.add(entry.endsWith(".jar") && p.getParent() != null ? p.getParent() : p);
        }
        Optional.ofNullable(System.getProperty("jna.boot.library.path")).filter(s -> !s.isEmpty())
                .map(s -> Path.of(s).toAbsolutePath()).ifPresent(out::add);
        Optional.ofNullable(System.getProperty("org.sqlite.lib.path")).filter(s -> !s.isEmpty())
                .map(s -> Path.of(s).toAbsolutePath()).ifPresent(out::add);
        out.add(Path.of(System.getProperty("java.home")).toAbsolutePath());
        return List.copyOf(new ArrayList<>(out));
    }
}
