package dev.magus.orchestrator.git;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reads the user's global git configuration the way git itself does (by asking git, so its
 * own parser, quoting and escapes apply, and includes are not followed), in magus's own
 * unconfined process. The answer is kept until either global config file changes.
 */
public final class GitConfigSource {
    private record Cached(Path home, Optional<FileTime> dot, Optional<FileTime> xdg, SafeGitConfig config) {
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
        Path xdgFile = Optional.ofNullable(hostEnv.get("XDG_CONFIG_HOME")).filter(s -> s.startsWith("/"))
                .map(Path::of).orElse(home.resolve(".config")).resolve("git/config");
        Optional<FileTime> dot = mtime(dotFile);
        Optional<FileTime> xdg = mtime(xdgFile);
        Cached c = cache.get();
        if (c != null && c.home.equals(home) && c.dot.equals(dot) && c.xdg.equals(xdg)) {
            return c.config;
        }
        SafeGitConfig config = dot.isEmpty() && xdg.isEmpty()
                ? SafeGitConfig.filter(List.of())
                : SafeGitConfig.filter(SafeGitConfig.parseListZ(ask(home, hostEnv)));
        cache.set(new Cached(home, dot, xdg, config));
        return config;
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

    private static Optional<FileTime> mtime(Path p) {
        try {
            return Optional.of(Files.getLastModifiedTime(p));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
