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
import dev.magus.workspace.quarantine.Manifest;
import dev.magus.workspace.quarantine.Quarantine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every later run safe, nothing lost: git's ordinary work in a confined run (a repository
 * made or cloned at any depth, a remote added, a push, an identity, a submodule) survives the
 * after-run audit and the run exits as the child did; a key of git's config that runs a
 * program is put back key by key, the rest of the file byte for byte, in an existing and in a
 * new repository; and what the audit takes is kept in the quarantine, which a confined run
 * cannot reach. Real confined children, required mode, a fake home.
 */
class GitWorkInRunsTest {
    @TempDir
    Path root;
    TestHost t;
    Path git;

    @BeforeEach
    void setUp() throws Exception {
        TestHost.assumeLandlock();
        t = new TestHost(root).mode("required");
        git = t.gitInit("git work test skipped: no git on PATH");
        host("config", "user.name", "Fake Person");
        host("config", "user.email", "fake@example.invalid");
        host("commit", "-q", "--allow-empty", "-m", "first");
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

    /** git run by the test itself, unconfined, in {@code dir}. */
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

    /** A bare repository inside the workspace with one commit on main, made unconfined. */
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

    private static void quiet(Outcome o) {
        assertThat(o.audit()).as(o.text()).isEmpty();
        assertThat(o.result().status()).as(o.text()).isZero();
    }

    private Quarantine quarantine() {
        return Quarantine.in(t.host().stateDir());
    }

    @Test
    void gitInitAndACommitInASubdirectorySurvive() throws Exception {
        Outcome o = run("mkdir sub && cd sub && git init -q && echo f > f && git add f && git commit -q -m m");
        quiet(o);
        assertThat(t.workspace.resolve("sub/.git")).isDirectory();
        assertThat(hostIn(t.workspace.resolve("sub"), "log", "--format=%s")).isEqualTo("m\n");
        assertThat(o.text()).contains("kept the repository the run created");
    }

    @Test
    void aCloneFromALocalBareRepositorySurvives() throws Exception {
        bare("upstream.git");
        Outcome o = run("mkdir -p deep/er && git clone -q " + t.workspace.resolve("upstream.git") + " deep/er/clone");
        quiet(o);
        assertThat(t.workspace.resolve("deep/er/clone/README")).hasContent("upstream");
        assertThat(hostIn(t.workspace.resolve("deep/er/clone"), "config", "remote.origin.url").strip())
                .isEqualTo(t.workspace.resolve("upstream.git").toString());
    }

    @Test
    void gitRemoteAddSurvives() throws Exception {
        Outcome o = run("git remote add origin https://example.invalid/x.git");
        quiet(o);
        assertThat(host("config", "remote.origin.url").strip()).isEqualTo("https://example.invalid/x.git");
    }

    @Test
    void gitPushUpstreamToALocalBareRemoteSurvives() throws Exception {
        Path remote = bare("remote.git");
        Outcome o = run("git remote add origin " + remote + " && git push -q -u origin HEAD:refs/heads/work");
        quiet(o);
        String branch = host("rev-parse", "--abbrev-ref", "HEAD").strip();
        assertThat(host("config", "branch." + branch + ".remote").strip()).isEqualTo("origin");
        assertThat(hostIn(remote, "log", "--format=%s", "work")).contains("first");
    }

    @Test
    void gitConfigUserEmailSurvives() throws Exception {
        Outcome o = run("git config user.email other@example.invalid && git config user.name Other");
        quiet(o);
        assertThat(host("config", "user.email").strip()).isEqualTo("other@example.invalid");
    }

    @Test
    void gitSubmoduleAddOfALocalRepositorySurvives() throws Exception {
        Path lib = Files.createDirectories(t.workspace.resolve("libsrc"));
        hostIn(lib, "init", "-q", "-b", "main");
        hostIn(lib, "commit", "-q", "--allow-empty", "-m", "lib");
        Outcome o = run("git -c protocol.file.allow=always submodule add -q " + lib + " vendor/lib");
        quiet(o);
        assertThat(t.workspace.resolve("vendor/lib/.git")).isRegularFile();
        assertThat(t.workspace.resolve(".git/modules/vendor/lib/config")).isRegularFile();
        assertThat(hostIn(t.workspace.resolve("vendor/lib"), "log", "--format=%s").strip()).isEqualTo("lib");
        assertThat(host("config", "submodule.vendor/lib.url").strip()).isEqualTo(lib.toString());
    }

    /** Keys that make a later git run a program, read another file or reach elsewhere, as {@code git config} sets them. */
    static final List<String[]> DANGEROUS = List.of(
            new String[] {"core.hooksPath", "/tmp/evil"}, new String[] {"core.fsmonitor", "touch pwned"},
            new String[] {"core.sshCommand", "sh -c evil"}, new String[] {"core.editor", "evil"},
            new String[] {"core.pager", "evil"}, new String[] {"core.askPass", "evil"},
            new String[] {"core.gitProxy", "evil"}, new String[] {"sequence.editor", "evil"},
            new String[] {"credential.helper", "!evil"}, new String[] {"diff.x.command", "evil"},
            new String[] {"diff.x.textconv", "evil"}, new String[] {"filter.x.clean", "evil"},
            new String[] {"filter.x.smudge", "evil"}, new String[] {"filter.x.process", "evil"},
            new String[] {"merge.x.driver", "evil %A"}, new String[] {"alias.st", "!sh -c evil"},
            new String[] {"include.path", "/tmp/evil.cfg"}, new String[] {"includeIf.gitdir:/.path", "/tmp/evil.cfg"},
            new String[] {"protocol.ext.allow", "always"}, new String[] {"uploadpack.packObjectsHook", "evil"},
            new String[] {"receive.fsckObjects", "false"}, new String[] {"gpg.program", "evil"},
            new String[] {"gpg.ssh.program", "evil"}, new String[] {"extensions.worktreeConfig", "true"},
            new String[] {"remote.origin.uploadpack", "evil"}, new String[] {"remote.origin.receivepack", "evil"},
            new String[] {"submodule.x.update", "!evil"}, new String[] {"init.templateDir", "/tmp/evil"});

    private static String plant(String gitDirArg) {
        StringBuilder b = new StringBuilder();
        for (String[] kv : DANGEROUS) {
            b.append(" && git ").append(gitDirArg).append(" config --add '").append(kv[0]).append("' '").append(kv[1])
                    .append("'");
        }
        return b.toString();
    }

    /**
     * The run's config with exactly the lines of the dangerous keys taken out, and the header of
     * each section {@code before} did not have that is left without a key.
     */
    private static String withoutDangerous(String runs, String before) {
        List<String> kept = new ArrayList<>();
        for (String line : runs.split("(?<=\n)")) {
            String s = line.strip().toLowerCase(Locale.ROOT);
            boolean dangerous = false;
            for (String[] kv : DANGEROUS) {
                String name = kv[0].substring(kv[0].lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
                if (s.startsWith(name + " =")) {
                    dangerous = true;
                }
            }
            if (!dangerous) {
                kept.add(line);
            }
        }
        java.util.Set<String> had = before.lines().map(l -> l.strip().toLowerCase(Locale.ROOT)).filter(l -> l.startsWith("["))
                .collect(java.util.stream.Collectors.toSet());
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < kept.size(); i++) {
            String s = kept.get(i).strip();
            boolean empty = s.startsWith("[") && !had.contains(s.toLowerCase(Locale.ROOT));
            for (int j = i + 1; empty && j < kept.size() && !kept.get(j).strip().startsWith("["); j++) {
                String l = kept.get(j).strip();
                empty = l.isEmpty() || l.startsWith("#") || l.startsWith(";");
            }
            if (!empty) {
                out.append(kept.get(i));
            }
        }
        return out.toString();
    }

    private void assertRevertedKeyByKey(Outcome o, Path config, String before) throws Exception {
        Diagnostic d = o.audit().stream().filter(x -> x.subject().equals(config.toString())).findFirst()
                .orElseThrow(() -> new AssertionError(o.text()));
        assertThat(d.code()).isEqualTo(Code.MGS2002);
        assertThat(d.details()).containsEntry("restored", "true").containsKey("quarantine");
        for (String[] kv : DANGEROUS) {
            assertThat(d.message()).as(kv[0]).containsIgnoringCase(kv[0].replace("includeIf.gitdir:/.path",
                    "includeif.gitdir:/.path"));
        }
        assertThat(d.message()).contains("kept: ").contains("user.email (");
        assertThat(o.result().status()).as("a key was put back, so the run fails").isEqualTo(1);
        // The run's version is in the quarantine; what is left is it without the dangerous lines.
        Kept k = quarantine().read(o.runId()).orElseThrow().entries().stream()
                .filter(e -> e.path().equals(config)).findFirst().orElseThrow();
        String runs = Files.readString(quarantine().payload(k).orElseThrow());
        String left = Files.readString(config);
        assertThat(left).isEqualTo(withoutDangerous(runs, before));
        String list = hostIn(config.getParent(), "config", "-f", config.toString(), "--list").toLowerCase(Locale.ROOT);
        for (String[] kv : DANGEROUS) {
            assertThat(list).doesNotContain(kv[0].toLowerCase(Locale.ROOT) + "=");
        }
        assertThat(list).contains("user.email=planted@example.invalid");
    }

    @Test
    void eachDangerousKeyPlantedInTheExistingRepositoryIsPutBackTheRestByteForByte() throws Exception {
        Path config = t.workspace.resolve(".git/config");
        Object mode = Files.getAttribute(config, "unix:mode");
        String before = Files.readString(config);
        Outcome o = run("git config user.email planted@example.invalid" + plant(""));
        assertRevertedKeyByKey(o, config, before);
        assertThat(Files.getAttribute(config, "unix:mode")).isEqualTo(mode);
    }

    @Test
    void eachDangerousKeyAndAHookInANewRepositoryArePutBackTheRepositoryKept() throws Exception {
        Path sub = t.workspace.resolve("sub");
        Outcome o = run("git init -q sub && cd sub && git config user.email planted@example.invalid" + plant("")
                + " && printf '#!/bin/sh\\nevil\\n' > .git/hooks/pre-commit && chmod 755 .git/hooks/pre-commit");
        assertRevertedKeyByKey(o, sub.resolve(".git/config"), "");
        assertThat(sub.resolve(".git/hooks/pre-commit")).doesNotExist();
        assertThat(sub.resolve(".git/hooks/pre-commit.sample")).exists();
        assertThat(o.text()).contains("neutralised sub/.git/hooks/pre-commit");
        assertThat(hostIn(sub, "status", "--short")).isEmpty();
        // The neutralised hook is in the quarantine and comes back byte for byte with its mode.
        Kept hook = quarantine().read(o.runId()).orElseThrow().entries().stream()
                .filter(e -> e.path().equals(sub.resolve(".git/hooks/pre-commit"))).findFirst().orElseThrow();
        assertThat(hook.code()).isEqualTo("info");
        assertThat(quarantine().restore(hook, false)).isInstanceOf(Quarantine.Restored.Done.class);
        assertThat(Files.readString(sub.resolve(".git/hooks/pre-commit"))).isEqualTo("#!/bin/sh\nevil\n");
        assertThat(mode(sub.resolve(".git/hooks/pre-commit"))).isEqualTo(0755);
    }

    @Test
    void aNewRepositoryWithOnlyAPlantedHookKeepsTheRunsStatus() throws Exception {
        Outcome o = run("git init -q sub && printf '#!/bin/sh\\nevil\\n' > sub/.git/hooks/post-checkout && exit 0");
        assertThat(o.audit()).as(o.text()).isEmpty();
        assertThat(o.result().status()).as("neutralising a hook fails nothing").isZero();
        assertThat(o.text()).contains("neutralised sub/.git/hooks/post-checkout");
        assertThat(t.workspace.resolve("sub/.git/hooks/post-checkout")).doesNotExist();
        assertThat(t.workspace.resolve("sub/.git/HEAD")).exists();
    }

    @Test
    void aGitFileNamingAnUnauditedDirectoryInsideIsTakenOut() throws Exception {
        Outcome o = run("mkdir -p sub fake/hooks && echo 'gitdir: ../fake' > sub/.git");
        assertThat(o.audit()).as(o.text()).singleElement()
                .satisfies(d -> assertThat(d.message()).contains("no .git directory"));
        assertThat(o.result().status()).isEqualTo(1);
        assertThat(t.workspace.resolve("sub/.git")).doesNotExist();
    }

    @Test
    void aGitFileCreatedPointingOutsideIsTakenOut() throws Exception {
        Outcome o = run("mkdir sub && echo 'gitdir: " + t.home + "/elsewhere' > sub/.git");
        assertThat(o.audit()).as(o.text()).singleElement().satisfies(d -> {
            assertThat(d.subject()).isEqualTo(t.workspace.resolve("sub/.git").toString());
            assertThat(d.message()).contains("outside the workspace");
        });
        assertThat(o.result().status()).isEqualTo(1);
        assertThat(t.workspace.resolve("sub/.git")).doesNotExist();
    }

    @Test
    void aSubmodulesConfigAndAConfigWorktreeAreJudgedKeyByKeyToo() throws Exception {
        Path lib = Files.createDirectories(root.resolve("libsrc"));
        hostIn(lib, "init", "-q", "-b", "main");
        hostIn(lib, "commit", "-q", "--allow-empty", "-m", "lib");
        host("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.toString(), "vendor/lib");
        host("config", "extensions.worktreeConfig", "true");
        Path subConfig = t.workspace.resolve(".git/modules/vendor/lib/config");
        Path worktreeConfig = t.workspace.resolve(".git/config.worktree");
        Outcome o = run("(cd vendor/lib && git config core.hooksPath /tmp/evil && git config user.name Sub)"
                + " && git config --worktree core.sshCommand 'sh -c evil' && git config --worktree user.name W");
        assertThat(o.result().status()).as(o.text()).isEqualTo(1);
        assertThat(o.audit()).extracting(Diagnostic::subject).containsExactlyInAnyOrder(subConfig.toString(),
                worktreeConfig.toString());
        assertThat(o.audit()).allSatisfy(d -> assertThat(d.details()).containsEntry("restored", "true"));
        String sub = hostIn(t.workspace.resolve("vendor/lib"), "config", "--list", "--local").toLowerCase(Locale.ROOT);
        assertThat(sub).doesNotContain("core.hookspath").contains("user.name=sub", "core.worktree=");
        String wt = Files.readString(worktreeConfig);
        assertThat(wt).doesNotContain("sshCommand").contains("name = W");
    }

    private static int mode(Path p) throws IOException {
        return ((Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS)) & 07777;
    }

    @Test
    void whatTheAuditTookComesBackFromTheQuarantineByteForByteWithModes() throws Exception {
        Path hook = t.workspace.resolve(".git/hooks/pre-commit");
        Path tree = t.workspace.resolve(".git/hooks/lib");
        Path yaml = t.workspace.resolve("magus.yaml");
        Outcome o = run("printf '#!/bin/sh\\nplanted\\n' > .git/hooks/pre-commit && chmod 751 .git/hooks/pre-commit"
                + " && mkdir -p .git/hooks/lib/deep && printf 'x\\0y' > .git/hooks/lib/deep/bin && chmod 700 .git/hooks/lib/deep/bin"
                + " && chmod 710 .git/hooks/lib/deep && ln -s deep/bin .git/hooks/lib/link"
                + " && printf 'sandbox: {mode: off}\\n' > magus.yaml");
        assertThat(o.result().status()).isEqualTo(1);
        assertThat(o.audit()).as(o.text()).hasSize(3).allSatisfy(d -> assertThat(d.details()).containsKey("quarantine"));
        assertThat(o.audit()).allSatisfy(d -> assertThat(d.message()).contains("magus quarantine restore " + o.runId()));
        assertThat(hook).doesNotExist();
        assertThat(tree).doesNotExist();
        assertThat(yaml).hasContent("sandbox:\n  mode: required");

        Manifest.Run kept = quarantine().read(o.runId()).orElseThrow();
        assertThat(kept.entries()).extracting(Kept::path).containsExactlyInAnyOrder(hook, tree, yaml);
        for (Kept k : kept.entries()) {
            assertThat(quarantine().restore(k, false)).as(k.path().toString()).isInstanceOf(Quarantine.Restored.Done.class);
        }
        assertThat(Files.readString(hook)).isEqualTo("#!/bin/sh\nplanted\n");
        assertThat(mode(hook)).isEqualTo(0751);
        assertThat(Files.readAllBytes(tree.resolve("deep/bin"))).containsExactly('x', 0, 'y');
        assertThat(mode(tree.resolve("deep/bin"))).isEqualTo(0700);
        assertThat(mode(tree.resolve("deep"))).isEqualTo(0710);
        assertThat(Files.readSymbolicLink(tree.resolve("link"))).isEqualTo(Path.of("deep/bin"));
        assertThat(yaml).hasContent("sandbox: {mode: off}");
    }

    @Test
    void aConfinedRunCanNeitherReadNorWriteTheQuarantine() throws Exception {
        Outcome first = run("printf 'sandbox: {mode: off}\\n' > magus.yaml");
        assertThat(first.result().status()).isEqualTo(1);
        Path runDir = quarantine().root().resolve(first.runId());
        Path manifest = runDir.resolve("manifest");
        assertThat(manifest).exists();
        List<String> paths = new ArrayList<>(List.of(manifest.toString(), runDir.resolve("1").toString()));
        Outcome o = run("cat " + String.join(" ", paths) + "; ls " + quarantine().root() + "; echo x > " + runDir.resolve("2")
                + "; echo done");
        assertThat(o.text()).doesNotContain("mode: off").doesNotContain("magus-quarantine").contains("done");
        assertThat(runDir.resolve("2")).doesNotExist();
        assertThat(Files.readString(manifest)).startsWith("magus-quarantine");
    }
}
