package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.run.Host;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckCommandTest {
    @TempDir
    Path dir;
    Path ws;
    Host host;
    Path dropper;

    @BeforeEach
    void workspace() throws IOException {
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.createDirectories(ws.resolve("src"));
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Path bin = Files.createDirectories(dir.resolve("home/Downloads"));
        dropper = Files.writeString(bin.resolve("dropper"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(dropper, PosixFilePermissions.fromString("rwx------"));
        host = Cli.fakeHost(dir, Map.of("PATH", bin.toRealPath() + ":/usr/bin:/bin"));
        dropper = dropper.toRealPath();
        Files.createDirectories(host.home().resolve(".aws"));
        Files.writeString(host.home().resolve(".aws/credentials"), "aws_secret_access_key = FAKEFAKEFAKE\n");
    }

    private Cli.Result check(Path cwd, String... args) {
        String[] full = new String[args.length + 1];
        full[0] = "check";
        System.arraycopy(args, 0, full, 1, args.length);
        return Cli.run(Cli.context(host, cwd, LandlockProbe.fixed(7)), full);
    }

    @Test
    void aReadInsideTheWorkspaceIsAllowedOnItsResolvedPath() {
        Cli.Result r = check(ws.resolve("src"), "read", "../magus.yaml");
        assertThat(r.status()).as(r.err()).isEqualTo(0);
        assertThat(r.out()).isEqualTo("allowed: " + ws.resolve("magus.yaml") + "\n");
    }

    @Test
    void aCredentialReadIsDeniedWithMgs2001AndCalledAnAttackWithNothingToPaste() {
        Cli.Result r = check(ws, "read", host.home().resolve(".aws/credentials").toString());
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out()).startsWith("magus: MGS2001 read denied: ~/.aws/credentials is outside every read rule;"
                        + " this looks like an attack")
                .contains("nearest rule: ")
                .doesNotContain("path:").doesNotContain("add to ");
    }

    @Test
    void aToolCacheReadIsDeniedWithTheNearestRuleAndTheYamlThatAllowsIt() throws Exception {
        Files.createDirectories(host.home().resolve(".cache/tool"));
        Cli.Result r = check(ws, "read", host.home().resolve(".cache/tool/index").toString());
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out()).startsWith("magus: MGS2001 read denied: ~/.cache/tool/index is outside every read rule")
                .contains("nearest rule: ")
                .contains("- path: \"~/.cache/tool\"").contains("mode: ro")
                .contains("add to " + ws.resolve("magus.yaml"));
    }

    @Test
    void aWriteOutsideIsMgs2002() {
        Cli.Result r = check(ws, "write", host.home().resolve(".bashrc").toString());
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out()).startsWith("magus: MGS2002 write denied: ~/.bashrc").contains("looks like an attack")
                .doesNotContain("mode: rw");
        Cli.Result build = check(ws, "write", host.home().resolve("build/out.bin").toString());
        assertThat(build.out()).startsWith("magus: MGS2002 write denied: ~/build/out.bin").contains("mode: rw");
    }

    @Test
    void aControlFileIsWriteDeniedWithMgs2002ButReadable() {
        Cli.Result write = check(ws, "write", ".git/hooks/pre-commit");
        assertThat(write.status()).isEqualTo(1);
        assertThat(write.out()).startsWith("magus: MGS2002 write denied: ").contains("is a control file (.git/hooks/)")
                .contains("control file: .git/hooks/").doesNotContain("add to");

        Cli.Result read = check(ws, "read", ".git/hooks/pre-commit");
        assertThat(read.status()).isEqualTo(0);
        assertThat(read.out()).isEqualTo("allowed: " + ws.resolve(".git/hooks/pre-commit") + "\n");

        assertThat(check(ws, "write", "src/Main.java").status()).isEqualTo(0);
    }

    @Test
    void aBareRepositorysHookIsWriteDeniedAsTheAuditWouldPutItBack() throws IOException {
        Path bare = Files.createDirectories(ws.resolve("remote.git"));
        assertThat(check(ws, "write", "remote.git/hooks/post-receive").status()).isEqualTo(0);
        Files.writeString(bare.resolve("HEAD"), "ref: refs/heads/main\n");
        Files.createDirectories(bare.resolve("objects"));
        Files.createDirectories(bare.resolve("refs"));
        Cli.Result hook = check(ws, "write", "remote.git/hooks/post-receive");
        assertThat(hook.status()).isEqualTo(1);
        assertThat(hook.out()).startsWith("magus: MGS2002 write denied: ").contains("is a control file (<git dir>/hooks/)");
        assertThat(check(ws, "write", "remote.git/config").out()).contains("is a control file (<git dir>/config)");
        assertThat(check(ws, "write", "remote.git/objects/ab/cdef").status()).isEqualTo(0);
    }

    @Test
    void aControlFileThatIsALinkIsWriteDeniedThoughItsTargetIsNot() throws IOException {
        Files.writeString(ws.resolve("envrc.real"), "export A=1\n");
        Files.createSymbolicLink(ws.resolve(".envrc"), Path.of("envrc.real"));
        Files.createSymbolicLink(ws.resolve("x"), Path.of(".git/hooks"));

        Cli.Result envrc = check(ws, "write", ".envrc");
        assertThat(envrc.status()).as(envrc.out()).isEqualTo(1);
        assertThat(envrc.out()).startsWith("magus: MGS2002 write denied: " + ws.resolve(".envrc") + ", a symbolic link to "
                + ws.resolve("envrc.real") + ", is a control file (.envrc)");
        Cli.Result hook = check(ws, "write", "x/pre-commit");
        assertThat(hook.status()).as(hook.out()).isEqualTo(1);
        assertThat(hook.out()).contains("is a control file (.git/hooks/)");
        assertThat(check(ws, "write", "envrc.real").status()).isEqualTo(0);
    }

    @Test
    void anUnqualifiedExecIsLookedUpOnPathAndTheFoundFileChecked() {
        Cli.Result r = check(ws, "exec", "dropper");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out()).startsWith("dropper is " + dropper + " (first match on PATH); checking that file\n")
                .contains("magus: MGS2007 exec denied: ~/Downloads/dropper is a binary outside every exec rule")
                .contains("mode: rx");

        Cli.Result sh = check(ws, "exec", "sh");
        assertThat(sh.status()).as(sh.out()).isEqualTo(0);
        assertThat(sh.out()).contains("sh is /").contains("allowed: /");
    }

    @Test
    void anExecNotOnPathIs127() {
        Cli.Result r = check(ws, "exec", "no-such-tool-anywhere");
        assertThat(r.status()).isEqualTo(127);
        assertThat(r.err()).contains("no-such-tool-anywhere: not found on PATH");
    }

    @Test
    void cwdOptionPicksTheWorkspaceAndTheBaseOfRelativePaths() throws IOException {
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Cli.Result r = check(elsewhere, "write", "src/out.txt", "--cwd", ws.toString());
        assertThat(r.status()).as(r.out()).isEqualTo(0);
        assertThat(r.out()).isEqualTo("allowed: " + ws.resolve("src/out.txt") + "\n");
    }

    @Test
    void withTheSandboxOffEverythingIsAllowedAndItSaysSo() throws IOException {
        Path plain = Files.createDirectories(dir.resolve("plain"));
        Cli.Result r = check(plain, "read", host.home().resolve(".aws/credentials").toString());
        assertThat(r.status()).isEqualTo(0);
        assertThat(r.out()).startsWith("allowed: " + host.home().resolve(".aws/credentials"))
                .contains("the sandbox is off");
    }

    @Test
    void anUnknownOperationIsAUsageError() {
        Cli.Result r = check(ws, "delete", "x");
        assertThat(r.status()).isEqualTo(125);
        assertThat(r.err()).contains("unknown operation 'delete'").endsWith("; see 'magus check --help'" + System.lineSeparator())
                .doesNotContain("Usage:");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void aBadMagusYamlIs125() throws IOException {
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: [nope\n");
        Cli.Result r = check(ws, "read", "magus.yaml");
        assertThat(r.status()).isEqualTo(125);
        assertThat(r.err()).startsWith("magus: MGS2004 ");
    }

    @Test
    void aLinkInTheWorkspaceToACredentialDirIsCheckedWhereItLeads() throws IOException {
        Path ssh = Files.createDirectories(host.home().resolve(".ssh"));
        Files.writeString(ssh.resolve("id_rsa"), "FAKE KEY\n");
        Files.createSymbolicLink(ws.resolve("keys"), ssh);
        Cli.Result r = check(ws, "read", "keys/id_rsa");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out()).startsWith("magus: MGS2001 read denied: ~/.ssh/id_rsa (requested as keys/id_rsa)");
    }

    @Test
    void aSymlinkLoopIsDeniedWithMgs2009() throws IOException {
        Files.createSymbolicLink(ws.resolve("a"), ws.resolve("b"));
        Files.createSymbolicLink(ws.resolve("b"), ws.resolve("a"));
        Cli.Result r = check(ws, "read", "a/x");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out()).startsWith("magus: MGS2009 ");
    }

    @Test
    void aPathWithControlCharactersIsShownNotSent() {
        Cli.Result r = check(ws, "read", "out\u001b[2J.txt");
        assertThat(r.status()).isEqualTo(0);
        assertThat(r.out()).isEqualTo("allowed: " + ws.resolve("out") + "\\x1b[2J.txt\n");
    }
}
