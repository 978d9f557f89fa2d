package dev.magus.workspace.learn;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether {@code magus learn --write} may add a grant by itself, by allowlist: a grant of a
 * kind known to be safe is written; anything else is "needs review" and written only with
 * {@code --force}; a grant that would let one run plant what runs later outside the sandbox, or
 * read credentials, is never proposed, not even with {@code --force}. Pure: the host is a
 * {@link Context} value.
 *
 * <p>Safe kinds: a tool's cache or install directory a spell knows ({@code ~/.m2/repository},
 * {@code ~/.cargo/registry}, {@code ~/go/pkg/mod}...); a tool's own directory under the XDG
 * cache or data dirs; read-only (or read-and-run) data outside home that holds no secret; a
 * project directory beside the workspace, read-only.
 */
public final class GrantReview {
    private GrantReview() {
    }

    /** The verdict on one grant. */
    public sealed interface Verdict {
        /** Why, in a few words. */
        String why();

        /** Written by {@code --write}. */
        record Safe(String why) implements Verdict {
        }

        /** Printed as {@code needs review: <why>}; written only with {@code --force}. */
        record NeedsReview(String why) implements Verdict {
        }

        /** Never proposed: not even {@code --force} writes it. */
        record Never(String why) implements Verdict {
        }
    }

    /**
     * The host a grant is judged on.
     *
     * @param home      the user's home
     * @param workspace the workspace root
     * @param path      the directories on {@code PATH}
     * @param xdgCache  {@code $XDG_CACHE_HOME}, else {@code ~/.cache}
     * @param xdgData   {@code $XDG_DATA_HOME}, else {@code ~/.local/share}
     * @param xdgConfig {@code $XDG_CONFIG_HOME}, else {@code ~/.config}
     */
    public record Context(Path home, Path workspace, List<Path> path, Path xdgCache, Path xdgData, Path xdgConfig) {
        public Context {
            Objects.requireNonNull(home, "home");
            Objects.requireNonNull(workspace, "workspace");
            path = List.copyOf(path);
            Objects.requireNonNull(xdgCache, "xdgCache");
            Objects.requireNonNull(xdgData, "xdgData");
            Objects.requireNonNull(xdgConfig, "xdgConfig");
        }

        /** From the environment a person's magus runs with. */
        public static Context of(java.util.Map<String, String> env, Path home, Path workspace) {
            List<Path> dirs = new java.util.ArrayList<>();
            for (String d : env.getOrDefault("PATH", "").split(":")) {
                try {
                    if (!d.isEmpty() && Path.of(d).isAbsolute()) {
                        dirs.add(Path.of(d).normalize());
                    }
                } catch (InvalidPathException e) {
                    // not a directory anyone can run from
                }
            }
            return new Context(home, workspace, dirs, xdg(env, "XDG_CACHE_HOME", home.resolve(".cache")),
                    xdg(env, "XDG_DATA_HOME", home.resolve(".local/share")), xdg(env, "XDG_CONFIG_HOME", home.resolve(".config")));
        }

        private static Path xdg(java.util.Map<String, String> env, String name, Path fallback) {
            String v = env.getOrDefault(name, "");
            try {
                return !v.isEmpty() && Path.of(v).isAbsolute() ? Path.of(v).normalize() : fallback;
            } catch (InvalidPathException e) {
                return fallback;
            }
        }
    }

    /** What a shell, an interpreter, a desktop session or systemd runs or reads when it starts. */
    static final List<String> STARTUP = List.of(".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases",
            ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".mkshrc",
            ".inputrc", ".xprofile", ".xinitrc", ".xsession", ".xsessionrc", ".Xresources", ".pam_environment",
            ".config/autostart", ".config/systemd", ".config/fish", ".config/environment.d", ".config/nushell",
            ".config/powershell", ".local/share/systemd", ".local/share/applications", ".local/share/dbus-1",
            ".config/plasma-workspace", ".config/openbox", ".config/i3", ".config/sway", ".config/hypr",
            ".pythonrc", ".pythonstartup", ".python_history", ".irbrc", ".pryrc", ".psqlrc", ".sqliterc", ".vimrc", ".vim",
            ".config/nvim", ".emacs", ".emacs.d", ".config/emacs", ".gitconfig", ".config/git", ".npmrc", ".yarnrc",
            ".config/pip", ".pip", ".pydistutils.cfg", ".condarc", ".Rprofile", ".gemrc", ".lesskey", ".screenrc",
            ".tmux.conf", ".config/tmux", ".wgetrc", ".curlrc", ".ssh", ".config/direnv", ".direnvrc", ".envrc");

    /** Credential and configuration stores of tools, and the directories of coding agents. */
    static final List<String> CREDENTIALS = List.of(".ssh", ".aws", ".azure", ".config/gcloud", ".config/rclone", ".config/gh",
            ".config/hub", ".netrc", ".docker", ".kube", ".gnupg", ".password-store", ".local/share/keyrings",
            ".local/share/kwalletd", ".git-credentials", ".config/git/credentials", ".pypirc", ".gem/credentials",
            ".cargo/credentials", ".cargo/credentials.toml", ".vault-token", ".terraform.d", ".pgpass", ".my.cnf",
            ".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties", ".config/op", ".1password",
            ".config/Bitwarden", ".mozilla", ".config/google-chrome", ".config/chromium", ".thunderbird", ".config/keybase",
            ".claude", ".claude.json", ".cursor", ".codex", ".gemini", ".aider", ".continue", ".config/github-copilot",
            ".copilot", ".windsurf", ".codeium", ".config/Code", ".vscode", ".vscode-server", ".config/JetBrains",
            ".local/share/JetBrains", ".config/anthropic", ".config/openai");

    /** Tool caches and installs the built-in spells know, under home. */
    static final List<String> TOOL_CACHES = dev.magus.policy.DenialAdvice.TOOL_CACHES;

    /** System directories whose content runs or decides who may do what: never written. */
    static final List<String> SYSTEM_RUN = List.of("/usr/local/bin", "/usr/local/sbin", "/usr/local/lib", "/usr/bin",
            "/usr/sbin", "/bin", "/sbin", "/usr/lib", "/lib", "/lib64", "/opt/bin", "/etc", "/usr/local/etc", "/boot",
            "/usr/share/applications", "/var/spool/cron", "/var/lib/systemd");

    /** Secrets outside home: never granted, not even to read. */
    static final List<String> SYSTEM_SECRETS = List.of("/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d",
            "/etc/ssl/private", "/etc/ssh", "/etc/security", "/etc/krb5.keytab", "/etc/NetworkManager/system-connections",
            "/etc/wpa_supplicant", "/etc/docker", "/etc/kubernetes", "/etc/libvirt", "/etc/letsencrypt", "/root", "/var/lib/docker",
            "/var/run/docker.sock", "/run/docker.sock", "/var/run", "/run", "/proc", "/sys", "/dev", "/var/lib/sss",
            "/var/lib/kubelet", "/var/lib/postgresql", "/var/lib/mysql", "/var/backups", "/var/log");

    /** Directories shared by everyone: never granted as a whole (a project below one may be). */
    static final List<String> SHARED_WHOLE = List.of("/home", "/tmp", "/var/tmp", "/var", "/usr", "/opt", "/srv", "/mnt",
            "/media");

    /** Directories where what is written is later run by an interpreter as it starts. */
    private static final List<String> INTERPRETER_PATHS = List.of("site-packages", "dist-packages", "node_modules/.bin",
            ".local/lib/python", "lib/python");

    /**
     * The verdict on granting {@code written} (as in magus.yaml: absolute, or {@code ~/...})
     * with {@code mode} ({@code ro}, {@code rx}, {@code rw}, {@code rwx}).
     */
    public static Verdict review(String written, String mode, Context c) {
        Path p;
        try {
            p = written.equals("~") ? c.home() : written.startsWith("~/") ? c.home().resolve(written.substring(2)) : Path.of(written);
        } catch (InvalidPathException e) {
            return new Verdict.Never("not a path");
        }
        if (!p.isAbsolute()) {
            return new Verdict.Never("not an absolute path");
        }
        p = p.normalize();
        boolean write = mode.contains("w");
        boolean exec = mode.contains("x");
        String lower = p.toString().toLowerCase(Locale.ROOT);
        if (p.getNameCount() == 0 || c.home().startsWith(p)) {
            return new Verdict.Never("the home directory or one of its ancestors: it holds every credential store");
        }
        Optional<String> named = underAny(p, c.home(), STARTUP);
        if (named.isPresent()) {
            return new Verdict.Never("~/" + named.get() + " is run or read by a shell, an interpreter, a desktop session or"
                    + " systemd when it starts");
        }
        named = underAny(p, c.home(), CREDENTIALS);
        if (named.isPresent()) {
            return new Verdict.Never("~/" + named.get() + " holds credentials or the configuration of a tool or coding agent");
        }
        if (p.startsWith(c.xdgConfig()) && write) {
            return new Verdict.Never("a tool's configuration (" + c.xdgConfig() + "): what a tool obeys when it runs later");
        }
        for (String s : SYSTEM_SECRETS) {
            if (p.startsWith(s) || Path.of(s).startsWith(p)) {
                return new Verdict.Never(s + " holds secrets of the system or of other users");
            }
        }
        for (String s : SHARED_WHOLE) {
            if (Path.of(s).startsWith(p)) {
                return new Verdict.Never(p + " as a whole: it holds other users' or the system's files");
            }
        }
        if (write) {
            for (Path dir : c.path()) {
                if (p.startsWith(dir) || dir.startsWith(p)) {
                    return new Verdict.Never(dir + " is on PATH: what is written there runs as the user, outside the sandbox");
                }
            }
            for (String s : SYSTEM_RUN) {
                if (p.startsWith(s) || Path.of(s).startsWith(p)) {
                    return new Verdict.Never(s + " holds what the system runs");
                }
            }
            for (String s : INTERPRETER_PATHS) {
                if (lower.contains("/" + s)) {
                    return new Verdict.Never("an interpreter's package directory (" + s + "): what is written there runs at"
                            + " its next start");
                }
            }
            if (lower.endsWith(".pth") || lower.endsWith("/bin") || lower.contains("/bin/") || lower.endsWith("/.local/bin")) {
                return new Verdict.Never("a directory programs are run from, or a file an interpreter loads at start");
            }
        }
        if (exec && underAny(p, c.home(), List.of("Downloads", "Desktop", "Documents")).isPresent()) {
            return new Verdict.Never("running what was downloaded (~/Downloads) from inside a build");
        }
        if (lower.contains("/.git/hooks") || lower.endsWith("/.git/config")) {
            return new Verdict.Never("git runs what its hooks and configuration name, outside the sandbox");
        }
        // The allowlist.
        named = underAny(p, c.home(), TOOL_CACHES);
        if (named.isPresent()) {
            return new Verdict.Safe("the cache or install directory of a tool a spell knows (~/" + named.get() + ")");
        }
        if (p.startsWith(c.xdgCache()) && p.getNameCount() > c.xdgCache().getNameCount()) {
            return new Verdict.Safe("a tool's own directory under the XDG cache dir");
        }
        if (p.startsWith(c.xdgData()) && p.getNameCount() > c.xdgData().getNameCount()) {
            return new Verdict.Safe("a tool's own directory under the XDG data dir");
        }
        Path parent = c.workspace().getParent();
        if (parent != null && p.startsWith(parent) && !p.startsWith(c.workspace()) && p.getNameCount() > parent.getNameCount()
                && !parent.equals(c.home()) && !c.home().startsWith(parent)) {
            return write ? new Verdict.NeedsReview("a project beside the workspace, writable: its own control files (git hooks,"
                    + " build scripts) are not audited by this workspace's runs")
                    : new Verdict.Safe("a project beside the workspace, read-only");
        }
        if (!p.startsWith(c.home())) {
            return write ? new Verdict.NeedsReview("a write outside home (" + p + ")")
                    : new Verdict.Safe("read-only data outside home");
        }
        return new Verdict.NeedsReview("a directory under home that is not a tool's cache or data dir");
    }

    /** The entry of {@code names} (relative to {@code home}) that {@code p} is, is under, or holds. */
    private static Optional<String> underAny(Path p, Path home, List<String> names) {
        for (String n : names) {
            Path at = home.resolve(n);
            if (p.startsWith(at) || (at.startsWith(p) && !p.equals(home))) {
                return Optional.of(n);
            }
        }
        return Optional.empty();
    }
}
