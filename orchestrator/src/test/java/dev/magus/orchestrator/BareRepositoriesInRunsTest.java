package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.workspace.quarantine.Kept;
import dev.magus.workspace.quarantine.Quarantine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bare repository inside the workspace, whatever its name, is audited like {@code .git}: a
 * confined run can point {@code remote.origin.url} at one (a harmless key) and the user's next
 * unconfined {@code git push} runs its hooks and obeys its config. A bare repository the run
 * created is kept with its hooks taken into the quarantine; a hook planted into one that was
 * there before is put back and fails the run; a key of its config that runs a program is put
 * back. Pushing to a bare remote made in the run still works. Real confined children, required
 * mode, a fake home.
 */
class BareRepositoriesInRunsTest {
    @TempDir
    Path root;
    TestHost t;
    Path git;
    Path marker;

    @BeforeEach
    void setUp() throws Exception {
        TestHost.assumeLandlock();
        t = new TestHost(root).mode("required");
        git = t.gitInit("bare repository test skipped: no git on PATH");
        host("config", "user.name", "Fake Person");
        host("config", "user.email", "fake@example.invalid");
        host("commit", "-q", "--allow-empty", "-m", "first");
        // Outside the workspace: only a hook run unconfined can write it.
        marker = root.resolve("hook-ran");
    }

    private record Outcome(String runId, RunResult result, List<RunEvent> events, List<Diagnostic> audit) {
        String text() {
            return TestHost.text(events);
        }
    }

    private Outcome run(String script) {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.invalid GIT_COMMITTER_NAME=A"
                        + " GIT_COMMITTER_EMAIL=a@example.invalid; " + script).build());
        List<RunEvent> events = TestHost.events(run);
        RunResult result = run.result().block(TestHost.DEADLINE);
        List<Diagnostic> audit = events.stream().filter(e -> e instanceof RunEvent.Diag)
                .map(e -> ((RunEvent.Diag) e).diagnostic()).filter(d -> d.layer() == Layer.AUDIT).toList();
        return new Outcome(run.id(), result, events, audit);
    }

    /** git run by the test itself, unconfined, in {@code dir}: the user's next command. */
    private String hostIn(Path dir, String... args) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder();
        pb.command().add(git.toString());
        pb.command().addAll(List.of(args));
        pb.environment().clear();
        pb.environment().putAll(Map.of("HOME", t.home.toString(), "PATH", t.env.get("PATH"), "GIT_AUTHOR_NAME", "A",
                "GIT_AUTHOR_EMAIL", "a@example.invalid", "GIT_COMMITTER_NAME", "A", "GIT_COMMITTER_EMAIL",
                "a@example.invalid"));
        pb.directory(dir.toFile()).redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("git %s: %s", List.of(args), out).isZero();
        return out;
    }

    private String host(String... args) throws IOException, InterruptedException {
        return hostIn(t.workspace, args);
    }

    /** A bare repository inside the workspace with one commit on main, made unconfined before the run. */
    private Path bare(String name) throws Exception {
        Path src = Files.createDirectories(root.resolve("src-" + name));
        hostIn(src, "init", "-q", "-b", "main");
        Files.writeString(src.resolve("README"), "upstream\n");
        hostIn(src, "add", "README");
        hostIn(src, "commit", "-q", "-m", "upstream");
        Path bare = t.workspace.resolve(name);
        hostIn(root, "clone", "-q", "--bare", src.toString(), bare.toString());
        return bare;
    }

    /** Shell that writes an executable hook at {@code path} (relative to the workspace) touching the marker. */
    private String hook(String path) {
        return "printf '#!/bin/sh\\necho ran > " + marker + "\\n' > " + path + " && chmod 755 " + path;
    }

    private Quarantine quarantine() {
        return Quarantine.in(t.host().stateDir());
    }

    @Test
    void aHookInABareRemoteTheRunCreatedIsQuarantinedAndTheUsersPushRunsNothing() throws Exception {
        Path remote = t.workspace.resolve("remote.git");
        Path hook = remote.resolve("hooks/post-receive");
        Outcome o = run("git init -q --bare remote.git && " + hook("remote.git/hooks/post-receive")
                + " && git remote add origin " + remote);
        assertThat(o.audit()).as(o.text()).isEmpty();
        assertThat(o.result().status()).as("neutralising a hook fails nothing: %s", o.text()).isZero();
        assertThat(o.text()).contains("neutralised remote.git/hooks/post-receive");
        assertThat(hook).doesNotExist();
        assertThat(remote.resolve("HEAD")).isRegularFile();
        Kept kept = quarantine().read(o.runId()).orElseThrow().entries().stream()
                .filter(e -> e.path().equals(hook)).findFirst().orElseThrow(() -> new AssertionError(o.text()));
        assertThat(kept.code()).isEqualTo("info");

        // The user's next push, unconfined, to the remote the run named.
        host("push", "-q", "origin", "HEAD:refs/heads/main");
        assertThat(marker).doesNotExist();
        assertThat(hostIn(remote, "log", "--format=%s", "main")).contains("first");
    }

    @Test
    void aHookPlantedInABareRepositoryThatWasThereIsPutBackAndFailsTheRun() throws Exception {
        Path remote = bare("remote.git");
        host("remote", "add", "origin", remote.toString());
        Outcome o = run(hook("remote.git/hooks/pre-receive") + " && " + hook("remote.git/hooks/reference-transaction"));
        assertThat(o.result().status()).as(o.text()).isEqualTo(1);
        assertThat(o.audit()).as(o.text()).extracting(Diagnostic::subject).containsExactlyInAnyOrder(
                remote.resolve("hooks/pre-receive").toString(), remote.resolve("hooks/reference-transaction").toString());
        assertThat(o.audit()).allSatisfy(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(d.layer()).isEqualTo(Layer.AUDIT);
        });
        assertThat(remote.resolve("hooks/pre-receive")).doesNotExist();
        assertThat(remote.resolve("hooks/reference-transaction")).doesNotExist();

        host("push", "-q", "origin", "HEAD:refs/heads/work");
        assertThat(marker).doesNotExist();
    }

    @Test
    void aProgramKeyAddedToABareRepositorysConfigIsPutBack() throws Exception {
        Path remote = bare("remote.git");
        Path config = remote.resolve("config");
        Outcome o = run("git --git-dir=remote.git config uploadpack.packObjectsHook 'touch " + marker + "'"
                + " && git --git-dir=remote.git config core.fsmonitor 'touch " + marker + "'"
                + " && git --git-dir=remote.git config user.email planted@example.invalid");
        assertThat(o.result().status()).as(o.text()).isEqualTo(1);
        assertThat(o.audit()).as(o.text()).singleElement().satisfies(d -> {
            assertThat(d.subject()).isEqualTo(config.toString());
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(d.details()).containsEntry("restored", "true");
        });
        String list = hostIn(remote, "config", "-f", config.toString(), "--list").toLowerCase(Locale.ROOT);
        assertThat(list).doesNotContain("uploadpack.packobjectshook").doesNotContain("core.fsmonitor")
                .contains("user.email=planted@example.invalid");

        hostIn(root, "clone", "-q", remote.toString(), root.resolve("fetched").toString());
        assertThat(marker).doesNotExist();
    }

    @Test
    void pushingToABareRemoteMadeInTheRunSurvives() throws Exception {
        Outcome o = run("git init -q --bare remote.git && git clone -q remote.git work 2>/dev/null && cd work"
                + " && git commit -q --allow-empty -m x && git push -q origin HEAD");
        assertThat(o.audit()).as(o.text()).isEmpty();
        assertThat(o.result().status()).as(o.text()).isZero();
        Path remote = t.workspace.resolve("remote.git");
        String branch = hostIn(t.workspace.resolve("work"), "rev-parse", "--abbrev-ref", "HEAD").strip();
        assertThat(hostIn(remote, "log", "--format=%s", branch)).isEqualTo("x\n");
        assertThat(hostIn(t.workspace.resolve("work"), "log", "--format=%s")).isEqualTo("x\n");
        // Only git's own sample hooks were there, and they are left.
        assertThat(remote.resolve("hooks/pre-receive.sample")).exists();
    }

    @Test
    void aRemoteNamingABareRepositoryHiddenInGitsDataIsPutBack() throws Exception {
        Path hidden = t.workspace.resolve(".git/objects/evil.git");
        Outcome o = run("git init -q --bare .git/objects/evil.git && " + hook(".git/objects/evil.git/hooks/post-receive")
                + " && git remote add origin " + hidden);
        assertThat(o.result().status()).as(o.text()).isEqualTo(1);
        assertThat(o.audit()).as(o.text()).singleElement().satisfies(d -> {
            assertThat(d.subject()).isEqualTo(t.workspace.resolve(".git/config").toString());
            assertThat(d.message()).containsIgnoringCase("remote.origin.url");
        });
        assertThat(Files.readString(t.workspace.resolve(".git/config"))).doesNotContain("evil.git");
    }

    @Test
    void aBareRepositoryTheRunCreatedHasItsConfigJudgedKeyByKey() throws Exception {
        Path remote = t.workspace.resolve("made.git");
        Path config = remote.resolve("config");
        Outcome o = run("git init -q --bare made.git && git --git-dir=made.git config core.hooksPath /tmp/evil"
                + " && git --git-dir=made.git config user.email planted@example.invalid");
        assertThat(o.result().status()).as(o.text()).isEqualTo(1);
        assertThat(o.audit()).as(o.text()).singleElement().satisfies(d -> {
            assertThat(d.subject()).isEqualTo(config.toString());
            assertThat(d.message()).containsIgnoringCase("core.hooksPath");
        });
        String list = hostIn(remote, "config", "-f", config.toString(), "--list").toLowerCase(Locale.ROOT);
        assertThat(list).doesNotContain("core.hookspath").contains("user.email=planted@example.invalid", "core.bare=true");
        assertThat(remote.resolve("HEAD")).isRegularFile();
    }

    @Test
    void aGitFileTheRunCreatesNamingASeparateGitDirInsideTheWorkspaceIsKept() throws Exception {
        Path work = t.workspace.resolve("work");
        Outcome o = run("mkdir gitdirs && git init -q --separate-git-dir=gitdirs/one work && cd work && echo f > f && git add f"
                + " && git commit -q -m m");
        assertThat(o.audit()).as(o.text()).isEmpty();
        assertThat(o.result().status()).as(o.text()).isZero();
        assertThat(work.resolve(".git")).isRegularFile();
        assertThat(hostIn(work, "log", "--format=%s")).isEqualTo("m\n");
        assertThat(hostIn(work, "rev-parse", "--git-dir").strip()).isEqualTo(t.workspace.resolve("gitdirs/one").toString());
    }

    @Test
    void aGitFileTheRunCreatesNamingABareRepositoryInsideTheWorkspaceIsKept() throws Exception {
        Path store = bare("store.git");
        Path wt = t.workspace.resolve("wt");
        Outcome o = run("mkdir wt && printf 'gitdir: ../store.git\\n' > wt/.git");
        assertThat(o.audit()).as(o.text()).isEmpty();
        assertThat(o.result().status()).as(o.text()).isZero();
        assertThat(wt.resolve(".git")).hasContent("gitdir: ../store.git");
        assertThat(hostIn(wt, "rev-parse", "--git-dir").strip()).isEqualTo(store.toString());
    }

    @Test
    void aGitFileTheRunCreatesNamingABareRepositoryOutsideTheWorkspaceIsQuarantined() throws Exception {
        Path outside = root.resolve("outside.git");
        hostIn(root, "init", "-q", "--bare", outside.toString());
        Path gitFile = t.workspace.resolve("wt/.git");
        Outcome o = run("mkdir wt && printf 'gitdir: " + outside + "\\n' > wt/.git");
        assertThat(o.audit()).as(o.text()).singleElement().satisfies(d -> {
            assertThat(d.subject()).isEqualTo(gitFile.toString());
            assertThat(d.message()).contains("outside the workspace");
            assertThat(d.details()).containsKey("quarantine");
        });
        assertThat(o.result().status()).isEqualTo(1);
        assertThat(gitFile).doesNotExist();
        Kept k = quarantine().read(o.runId()).orElseThrow().entries().get(0);
        assertThat(quarantine().payload(k).orElseThrow()).hasContent("gitdir: " + outside);
    }
}
