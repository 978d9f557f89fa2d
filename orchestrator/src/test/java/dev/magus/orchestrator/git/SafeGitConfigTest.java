package dev.magus.orchestrator.git;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SafeGitConfigTest {
    static final String FAKE_TOKEN = "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKE0000";

    @Test
    void keepsIdentityAndBehaviourDropsSecretsRewritesIncludesAndCommands() {
        SafeGitConfig safe = SafeGitConfig.filter(List.of(
                Map.entry("user.name", "Ada"),
                Map.entry("user.email", "ada@example.invalid"),
                Map.entry("core.autocrlf", "input"),
                Map.entry("init.defaultBranch", "main"),
                Map.entry("credential.helper", "store"),
                Map.entry("url.https://" + FAKE_TOKEN + "@github.com/.insteadof", "https://github.com/"),
                Map.entry("http.https://example.invalid/.extraheader", "Authorization: Bearer " + FAKE_TOKEN),
                Map.entry("include.path", "~/.gitconfig.secret"),
                Map.entry("core.sshcommand", "ssh -i ~/.ssh/id_rsa"),
                Map.entry("core.fsmonitor", "/home/x/evil"),
                Map.entry("core.hookspath", "/home/x/hooks"),
                Map.entry("filter.lfs.process", "git-lfs filter-process"),
                Map.entry("filter.evil.clean", "sh -c steal")));
        assertThat(safe.entries()).containsOnlyKeys("user.name", "user.email", "core.autocrlf", "init.defaultbranch", "filter.lfs.process");
        assertThat(safe.render()).doesNotContain(FAKE_TOKEN).doesNotContain("credential").doesNotContain("include")
                .contains("[user]\n\tname = \"Ada\"\n").contains("[filter \"lfs\"]\n\tprocess = \"git-lfs filter-process\"\n");
    }

    @Test
    void parsesGitsNulSeparatedListing() {
        assertThat(SafeGitConfig.parseListZ("user.name\nAda Lovelace\0core.bare\0safe.directory\n/a\nb\0"))
                .containsExactly(Map.entry("user.name", "Ada Lovelace"), Map.entry("core.bare", "true"),
                        Map.entry("safe.directory", "/a\nb"));
    }

    @Test
    void renderedFileIsReadBackByGitItself(@TempDir Path dir) throws Exception {
        Optional<Path> git = onPath("git");
        if (git.isEmpty()) {
            System.err.println("SKIP renderedFileIsReadBackByGitItself: git is not on PATH");
        }
        Assumptions.assumeTrue(git.isPresent(), "git is not on PATH");
        Path home = Files.createDirectories(dir.resolve("home"));
        Files.writeString(home.resolve(".gitconfig"), """
                [user]
                \tname = "Ada \\"the\\" Lovelace"
                \temail = ada@example.invalid
                [credential]
                \thelper = store
                [url "https://%s@github.com/"]
                \tinsteadOf = https://github.com/
                [safe]
                \tdirectory = /one
                \tdirectory = /two
                """.formatted(FAKE_TOKEN));
        SafeGitConfig safe = new GitConfigSource(git.get()).read(home, Map.of("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin")));
        Path out = Files.writeString(dir.resolve("safe"), safe.render());
        Process p = new ProcessBuilder(git.get().toString(), "config", "--file", out.toString(), "--list", "-z").start();
        String listed = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).isZero();
        assertThat(SafeGitConfig.parseListZ(listed)).containsExactly(
                Map.entry("user.name", "Ada \"the\" Lovelace"), Map.entry("user.email", "ada@example.invalid"),
                Map.entry("safe.directory", "/one"), Map.entry("safe.directory", "/two"));
        assertThat(Files.readString(out)).doesNotContain(FAKE_TOKEN);
    }

    static Optional<Path> onPath(String name) throws IOException {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
