package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The README's first command: `bin/magus demo`, run as a person would. */
class DemoIT {

    static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("bin/magus"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("bin/magus not found above " + Path.of("").toAbsolutePath());
        }
        return p;
    }


    @Test
    void everyAttackOfTheCompromisedPostinstallIsRefusedAndShownWhileTheBuildSucceeds() throws Exception {
        Process p = new ProcessBuilder(repoRoot().resolve("bin/magus").toString(), "demo")
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        int status = p.exitValue();
        if (status == 125 && out.contains("MGS2012")) {
            System.err.println("SKIP DemoIT: this host has no Landlock ABI 3, so required mode refuses to run:\n" + out);
            Assumptions.abort("no Landlock ABI >= 3 on this host");
        }
        assertThat(status).as(out).isZero();
        assertThat(out)
                .contains("MGS2001 read denied: ~/.aws/credentials")
                .contains("MGS2001 read denied: ~/.ssh/id_rsa")
                .contains("MGS2001 read denied: ~/.npmrc")
                .contains("MGS2002 write denied: ~/.bashrc")
                .contains("MGS2007 exec denied: ~/Downloads/miner")
                .contains("GITHUB_TOKEN=<not in my environment>")
                .contains("AWS_SECRET_ACCESS_KEY=<not in my environment>")
                .contains("addon built")
                .contains("the attack failed")
                .doesNotContain("AKIAFAKE")
                .doesNotContain("FAKE-KEY-FOR-THE-MAGUS-DEMO")
                .doesNotContain("npm_FAKE")
                .doesNotContain("ghp_FAKE");
        assertThat(out).containsPattern("MGS2002 write denied: /\\S+/outside/loot.txt");
    }
}
