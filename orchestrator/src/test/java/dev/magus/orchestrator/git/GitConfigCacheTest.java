package dev.magus.orchestrator.git;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * git is asked once per change of the user's git config, not once per run: a second process
 * (a fresh {@link GitConfigSource}) reads the state dir's copy instead, and any change of either
 * config file, the mtime put back included, asks again. A stand-in "git" counts its calls.
 */
class GitConfigCacheTest {
    @TempDir
    Path dir;

    @Test
    void gitIsAskedOncePerChangeAcrossProcesses() throws Exception {
        Path home = Files.createDirectories(dir.resolve("home"));
        Path state = dir.resolve("state");
        Path calls = dir.resolve("calls");
        Path git = Files.writeString(dir.resolve("git"), "#!/bin/sh\necho x >> '" + calls + "'\n"
                + "printf 'user.name\\nAda\\000credential.helper\\nstore\\000'\n",
                java.nio.charset.StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(git, PosixFilePermissions.fromString("rwx------"));
        Path config = Files.writeString(home.resolve(".gitconfig"), "[user]\n\tname = Ada\n");
        Map<String, String> env = Map.of("PATH", "/usr/bin:/bin");

        String first = new GitConfigSource(git).rendered(home, env, Optional.of(state));
        assertThat(first).contains("name = \"Ada\"").doesNotContain("helper");
        assertThat(new GitConfigSource(git).rendered(home, env, Optional.of(state))).isEqualTo(first);
        GitConfigSource one = new GitConfigSource(git);
        one.rendered(home, env, Optional.of(state));
        one.rendered(home, env, Optional.of(state));
        assertThat(Files.readAllLines(calls)).hasSize(1);
        assertThat(Files.readString(state.resolve(GitConfigSource.CACHE_FILE))).doesNotContain("store");

        FileTime mtime = Files.getLastModifiedTime(config);
        Thread.sleep(20);
        Files.writeString(config, "[user]\n\tname = Bob\n");
        Files.setLastModifiedTime(config, mtime);
        new GitConfigSource(git).rendered(home, env, Optional.of(state));
        assertThat(Files.readAllLines(calls)).hasSize(2);

        Files.delete(config);
        assertThat(new GitConfigSource(git).rendered(home, env, Optional.of(state))).doesNotContain("Ada");
        assertThat(Files.readAllLines(calls)).hasSize(2); // no config file: nothing to ask
    }
}
