package dev.magus.workspace.learn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code magus learn --write} by allowlist: a corpus of dangerous denials, each turned into a
 * hint as if the advice had let it through, writes nothing, not even with {@code --force};
 * the kinds known to be safe are written.
 */
class GrantReviewTest {
    static final Path HOME = Path.of("/home/dev");
    static final GrantReview.Context CONTEXT = GrantReview.Context.of(
            Map.of("PATH", "/home/dev/.local/bin:/home/dev/bin:/usr/local/bin:/usr/bin:/bin:/opt/tools/bin"),
            HOME, Path.of("/home/dev/src/app"));

    /** {@code path mode}: every one a grant no run may get by itself. */
    static final List<String> DANGEROUS = List.of(
            "~/.bashrc rw", "~/.bash_aliases rw", "~/.bash_profile rw", "~/.profile rw", "~/.zshrc rw", "~/.zshenv rw",
            "~/.zprofile rw", "~/.config/autostart rw", "~/.config/autostart/evil.desktop rw", "~/.config/systemd rw",
            "~/.config/systemd/user rw", "~/.config/fish rw", "~/.config/fish/config.fish rw", "~/.pam_environment rw",
            "~/.xprofile rw", "~/.xinitrc rw", "~/.inputrc rw", "~/.local/share/systemd/user rw",
            "~/.local/share/applications rw", "~/.config/environment.d rw", "~/.local/bin rw", "~/bin rwx", "/usr/local/bin rw",
            "/usr/local/bin/node rw", "/usr/bin rw", "/opt/tools/bin rw", "/usr/local/lib/python3.11/dist-packages rw",
            "~/.local/lib/python3.11/site-packages rw", "~/.local/lib/python3.11/site-packages/evil.pth rw",
            "/usr/lib/python3/dist-packages rw", "~/.ssh ro", "~/.ssh/id_ed25519 ro", "~/.ssh/authorized_keys rw",
            "~/.aws ro", "~/.aws/credentials ro", "~/.config/rclone ro", "~/.config/rclone/rclone.conf ro", "~/.config/gh ro",
            "~/.config/gh/hosts.yml ro", "~/.netrc ro", "~/.docker ro", "~/.docker/config.json ro", "~/.kube ro",
            "~/.kube/config ro", "~/.gnupg ro", "~/.password-store ro", "~/.local/share/keyrings ro", "~/.git-credentials ro",
            "~/.claude rw", "~/.claude/settings.json rw", "~/.cursor rw", "~/.codex rw", "~/.gemini rw",
            "~/.config/github-copilot ro", "~/Downloads rx", "~/Downloads/installer.sh rx", "~/ rw", "/ ro", "/home ro",
            "/etc/shadow ro", "/etc/ssh ro", "/root ro", "/etc rw", "~/.gitconfig rw", "~/.config/git rw", "~/.npmrc ro",
            "~/.config/pip rw", "~/.config rw", "~/.local/share ro", "/var/run/docker.sock rw", "/run/user/1000/bus rw",
            "~/src/app/.git/hooks rw", "~/.vimrc rw", "~/.config/nvim rw", "~/.m2/settings.xml ro", "~/.pypirc ro");

    private static Diagnostic hint(String path, String mode) {
        return Diagnostic.of(Code.MGS2002, "denied", path, Operation.WRITE, Layer.KERNEL, "inferred:stderr")
                .withDetail(DetailKey.CLASS.key(), "hint")
                .withDetail(DetailKey.ALLOW_PATH.key(), path)
                .withDetail(DetailKey.ALLOW_MODE.key(), mode);
    }

    @Test
    void aCorpusOfDangerousDenialsWritesNothingEvenWithForce() {
        assertThat(DANGEROUS).hasSizeGreaterThanOrEqualTo(60);
        List<Diagnostic> diags = new ArrayList<>();
        for (String line : DANGEROUS) {
            String[] f = line.split(" ");
            assertThat(GrantReview.review(f[0], f[1], CONTEXT)).as(line).isInstanceOf(GrantReview.Verdict.Never.class);
            diags.add(hint(f[0], f[1]));
        }
        // One at a time: merged, a wide entry would hide the narrower ones it covers.
        for (Diagnostic d : diags) {
            Learned.Reviewed r = Learned.from(List.of(d)).reviewed(CONTEXT);
            assertThat(r.toWrite(false)).as(d.subject()).isEmpty();
            assertThat(r.toWrite(true)).as(d.subject()).isEmpty();
        }
        Learned.Reviewed all = Learned.from(diags).reviewed(CONTEXT);
        assertThat(all.toWrite(true)).isEmpty();
        assertThat(all.never()).isNotEmpty();
    }

    @Test
    void theSafeKindsAreWrittenAndTheRestNeedReview() {
        for (String safe : List.of("~/.m2/repository rw", "~/.cargo/registry rw", "~/go/pkg/mod rw", "~/.gradle/caches rw",
                "~/.cache/pip rw", "~/.cache/ms-playwright rwx", "~/.local/share/pnpm rw", "/usr/share/dict ro", "/opt/jdk-21 rx",
                "/srv/fixtures ro", "~/src/shared-lib ro", "~/src/other-project rx")) {
            String[] f = safe.split(" ");
            assertThat(GrantReview.review(f[0], f[1], CONTEXT)).as(safe).isInstanceOf(GrantReview.Verdict.Safe.class);
        }
        for (String review : List.of("~/src/shared-lib rw", "~/notes ro", "/srv/data rw", "~/.cache ro")) {
            String[] f = review.split(" ");
            assertThat(GrantReview.review(f[0], f[1], CONTEXT)).as(review).isInstanceOf(GrantReview.Verdict.NeedsReview.class);
        }
        Learned.Reviewed r = Learned.from(List.of(hint("~/.m2/repository", "rw"), hint("~/notes", "ro"),
                hint("~/.bashrc", "rw"))).reviewed(CONTEXT);
        assertThat(r.toWrite(false)).extracting(Learned.Addition::path).containsExactly("~/.m2/repository");
        assertThat(r.toWrite(true)).extracting(Learned.Addition::path).containsExactly("~/.m2/repository", "~/notes");
        assertThat(r.never()).extracting(j -> j.addition().path()).containsExactly("~/.bashrc");
    }
}
