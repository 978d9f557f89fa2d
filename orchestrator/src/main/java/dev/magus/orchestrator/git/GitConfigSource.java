package dev.magus.orchestrator.git;

import dev.magus.workspace.FileStamp;
import dev.magus.workspace.audit.Readers;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reads the user's global git configuration the way git itself does (by asking git, so its
 * own parser, quoting and escapes apply, and includes are not followed), in magus's own
 * unconfined process, and keeps the answer until either global config file changes.
 *
 * <p>Kept twice: in this process (a server asks git once, not once per run), and in a file of
 * magus's state dir, so that a one-shot {@code magus run} does not start a {@code git} process
 * either. Both are keyed by the {@link FileStamp} of both files (inode,
 * size, mtime and ctime), never the mtime alone. The file holds only the safe subset, what the
 * run's private copy holds anyway; the state dir is never granted to a run.
 */
public final class GitConfigSource {
    /** The state dir's cached copy; its first line is the key, the rest the rendered safe config. */
    public static final String CACHE_FILE = "gitconfig.cache";

    /** What the in-process copy was made from: compared as values, its text key built only on a miss. */
    private record Key(Path home, FileStamp dot, Path xdgFile, FileStamp xdg) {
        String text() {
            return "# magus gitconfig cache 1 " + home + " " + dot + " " + xdgFile + " " + xdg;
        }
    }

    private record Cached(Key key, String rendered) {
    }

    private final Path git;
    private final AtomicReference<Cached> cache = new AtomicReference<>();

    /** @param git the git binary to ask; magus finds it on its own PATH */
    public GitConfigSource(Path git) {
        this.git = git;
    }

    /**
     * The safe subset of the global config of the user whose home is {@code home}. Empty when
     * there is none or git cannot read it; never throws for a missing or broken config.
     */
    public SafeGitConfig read(Path home, Map<String, String> hostEnv) {
        Path dotFile = home.resolve(".gitconfig");
        Path xdgFile = xdgFile(home, hostEnv);
        FileStamp dot = FileStamp.of(dotFile);
        FileStamp xdg = FileStamp.of(xdgFile);
        return dot.exists() || xdg.exists()
                ? SafeGitConfig.filter(SafeGitConfig.parseListZ(ask(home, hostEnv)))
                : SafeGitConfig.filter(List.of());
    }

    /**
     * The rendered safe config ({@link SafeGitConfig#render()}) for a run: from this process's
     * copy, else from {@code stateDir}'s {@value #CACHE_FILE}, else from git (then kept in both),
     * each used only while the stamps of both config files are the ones it was made from.
     */
    public String rendered(Path home, Map<String, String> hostEnv, Optional<Path> stateDir) {
        Path xdgFile = xdgFile(home, hostEnv);
        // Taken before git reads the files: a change meanwhile leaves a key that no longer matches.
        // Through the installed reader's lstat: both files are usually absent (FileStamp.of(Path, DirectoryReader)).
        Key stamps = new Key(home, FileStamp.of(home.resolve(".gitconfig"), Readers.installed()), xdgFile,
                FileStamp.of(xdgFile, Readers.installed()));
        Cached c = cache.get();
        if (c != null && c.key().equals(stamps)) {
            return c.rendered();
        }
        String key = stamps.text();
        Optional<Path> file = stateDir.map(d -> d.resolve(CACHE_FILE));
        Optional<String> stored = file.flatMap(f -> storedFor(f, key));
        String rendered = stored.orElseGet(() -> read(home, hostEnv).render());
        cache.set(new Cached(stamps, rendered));
        if (stored.isEmpty()) {
            file.ifPresent(f -> store(f, key, rendered));
        }
        return rendered;
    }

    private static Path xdgFile(Path home, Map<String, String> hostEnv) {
        return Optional.ofNullable(hostEnv.get("XDG_CONFIG_HOME")).filter(s -> s.startsWith("/"))
                .map(Path::of).orElse(home.resolve(".config")).resolve("git/config");
    }

    private static Optional<String> storedFor(Path file, String key) {
        try {
            if (!Files.isRegularFile(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                return Optional.empty();
            }
            String text = Files.readString(file, StandardCharsets.UTF_8);
            int nl = text.indexOf('\n');
            return nl > 0 && text.substring(0, nl).equals(key) ? Optional.of(text.substring(nl + 1)) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Best effort: a state dir that cannot be written only means git is asked again next time. */
    private static void store(Path file, String key, String rendered) {
        try {
            Files.createDirectories(file.getParent());
            Path tmp = Files.createTempFile(file.getParent(), CACHE_FILE, ".new");
            try {
                Files.writeString(tmp, key + "\n" + rendered, StandardCharsets.UTF_8);
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException | RuntimeException e) {
            // see above
        }
    }

    private String ask(Path home, Map<String, String> hostEnv) {
        ProcessBuilder pb = new ProcessBuilder(git.toString(), "config", "--global", "--list", "-z");
        pb.environment().clear();
        pb.environment().put("HOME", home.toString());
        Optional.ofNullable(hostEnv.get("XDG_CONFIG_HOME")).ifPresent(v -> pb.environment().put("XDG_CONFIG_HOME", v));
        pb.environment().put("PATH", hostEnv.getOrDefault("PATH", "/usr/bin:/bin"));
        pb.redirectErrorStream(false).redirectError(ProcessBuilder.Redirect.DISCARD).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        try {
            Process p = pb.start();
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "";
            }
            return p.exitValue() == 0 ? out : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
