package dev.magus.workspace.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.SandboxException;
import dev.magus.policy.decl.Base;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.fs.AccessMode;
import dev.magus.events.Mode;
import dev.magus.workspace.audit.ControlFilesAction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkspaceConfigTest {
    @TempDir
    Path tmp;

    private Path file(String yaml) throws IOException {
        return Files.writeString(tmp.resolve("magus.yaml"), yaml);
    }

    private WorkspaceConfig read(String yaml) throws IOException {
        return WorkspaceConfig.parse(file(yaml)).config();
    }

    /** Reads and expects MGS2004 at exactly {@code source}. */
    private Diagnostic error(String yaml, String source) throws IOException {
        Path f = file(yaml);
        try {
            WorkspaceConfig.parse(f).config().sandbox();
        } catch (SandboxException e) {
            Diagnostic d = e.diagnostic();
            assertThat(d.code()).isEqualTo(Code.MGS2004);
            assertThat(d.source()).isEqualTo(source);
            assertThat(d.details()).containsEntry("file", f.toString());
            return d;
        }
        throw new AssertionError("expected MGS2004 at " + source + " for:\n" + yaml);
    }

    @Test
    void readsTheWholeSectionAndIgnoresOtherSections() throws IOException {
        WorkspaceConfig c = read("""
                name: demo
                projects: [api, web]
                sandbox:
                  mode: best-effort
                  allow:
                    - name: mise-installs
                      env: MISE_DATA_DIR
                      base: xdgData
                      path: mise
                      mode: rx
                    - path: $HOME/.cache/bazel
                      mode: rw
                    - path: /opt/tools
                  env:
                    passthrough: [MISE_TRUSTED_CONFIG_PATHS, "MISE_*"]
                """);
        assertThat(c.mode()).isEqualTo(Mode.BEST_EFFORT);
        assertThat(c.sandbox().layer()).isEqualTo(DeclLayer.workspace());
        assertThat(c.sandbox().allow()).hasSize(3);
        SandboxAllow mise = c.sandbox().allow().get(0);
        assertThat(mise.name()).contains("mise-installs");
        assertThat(mise.env()).contains("MISE_DATA_DIR");
        assertThat(mise.base()).contains(Base.XDG_DATA);
        assertThat(mise.path()).contains("mise");
        assertThat(mise.mode()).isEqualTo(AccessMode.RX);
        assertThat(mise.site().source("mode")).isEqualTo("magus.yaml:10:13 sandbox.allow[0].mode");
        assertThat(c.sandbox().allow().get(1).path()).contains("$HOME/.cache/bazel");
        assertThat(c.sandbox().allow().get(2).mode()).isEqualTo(AccessMode.R);
        assertThat(c.sandbox().passthrough().entries()).containsExactly("MISE_TRUSTED_CONFIG_PATHS", "MISE_*");
    }

    @Test
    void aFileWithoutSandboxIsOff() throws IOException {
        assertThat(read("")).isEqualTo(WorkspaceConfig.DEFAULT);
        assertThat(read("name: demo\n")).isEqualTo(WorkspaceConfig.DEFAULT);
        assertThat(read("sandbox:\n")).isEqualTo(WorkspaceConfig.DEFAULT);
        // YAML 1.1 would read a bare off as a boolean; the node tree keeps the word.
        assertThat(read("sandbox:\n  mode: off\n").mode()).isEqualTo(Mode.OFF);
        assertThat(read("sandbox:\n  mode: required\n  allow: []\n  env: {}\n").mode()).isEqualTo(Mode.REQUIRED);
    }

    @Test
    void superviseIsOffUnlessTheWorkspaceSaysTrue() throws IOException {
        assertThat(WorkspaceConfig.DEFAULT.supervise()).isFalse();
        assertThat(read("sandbox:\n  mode: required\n").supervise()).isFalse();
        assertThat(read("sandbox:\n  mode: required\n  supervise: true\n").supervise()).isTrue();
        assertThat(read("sandbox:\n  supervise: false\n").supervise()).isFalse();
        error("sandbox:\n  supervise: yes please\n", "magus.yaml:2:14 sandbox.supervise");
        error("sandbox:\n  supervise: [true]\n", "magus.yaml:2:14 sandbox.supervise");
    }

    @Test
    void controlFilesIsRestoreUnlessTheWorkspaceSaysReport() throws IOException {
        assertThat(WorkspaceConfig.DEFAULT.controlFiles()).isEqualTo(ControlFilesAction.RESTORE);
        assertThat(read("sandbox:\n  mode: required\n").controlFiles()).isEqualTo(ControlFilesAction.RESTORE);
        assertThat(read("sandbox:\n  mode: required\n  controlFiles: restore\n").controlFiles()).isEqualTo(ControlFilesAction.RESTORE);
        assertThat(read("sandbox:\n  mode: required\n  controlFiles: report\n").controlFiles()).isEqualTo(ControlFilesAction.REPORT);
    }

    @Test
    void anUnknownControlFilesValueIsMgs2004WithItsPosition() throws IOException {
        Diagnostic d = error("sandbox:\n  mode: required\n  controlFiles: ignore\n", "magus.yaml:3:17 sandbox.controlFiles");
        assertThat(d.message()).contains("'ignore'").contains("restore or report");
        error("sandbox:\n  controlFiles: [report]\n", "magus.yaml:2:17 sandbox.controlFiles");
        error("sandbox:\n  controlFiles: report\n  controlFiles: restore\n", "magus.yaml:3:3 sandbox.controlFiles");
    }

    @Test
    void unknownMode() throws IOException {
        Diagnostic d = error("sandbox:\n  mode: strict\n", "magus.yaml:2:9 sandbox.mode");
        assertThat(d.message()).contains("'strict'");
    }

    @Test
    void unknownKeys() throws IOException {
        error("sandbox:\n  mode: required\n  allowed: []\n", "magus.yaml:3:3 sandbox.allowed");
        Diagnostic d = error("sandbox:\n  allow:\n    - path: /x\n      mdoe: rw\n", "magus.yaml:4:7 sandbox.allow[0].mdoe");
        assertThat(d.message()).contains("unknown key 'mdoe'").contains("expected base, env, mode, name, path");
        error("sandbox:\n  env:\n    passthru: [A]\n", "magus.yaml:3:5 sandbox.env.passthru");
        error("sandbox:\n  mode: off\n  mode: required\n", "magus.yaml:3:3 sandbox.mode");
    }

    @Test
    void aSectionATypoAwayFromSandboxIsRefusedEvenWithTheSandboxOffAndOtherToolsSectionsAreLeftAlone() throws IOException {
        Diagnostic d = error("sandboxx:\n  mode: required\n", "magus.yaml:1:1 sandboxx");
        assertThat(d.message()).contains("unknown section 'sandboxx' (did you mean sandbox?)");
        error("Sandbox:\n  mode: required\n", "magus.yaml:1:1 Sandbox");
        error("sandbox:\n  mode: off\nproject:\n  - dir: .\n", "magus.yaml:3:1 project");
        assertThat(read("name: demo\nsandbox:\n  mode: off\ntasks: {}\n").mode()).isEqualTo(Mode.OFF);
    }

    @Test
    void unknownBaseAndAccessMode() throws IOException {
        error("sandbox:\n  allow:\n    - path: go\n      base: xdgcache\n", "magus.yaml:4:13 sandbox.allow[0].base");
        error("sandbox:\n  allow:\n    - path: /x\n    - path: /y\n      mode: wx\n", "magus.yaml:5:13 sandbox.allow[1].mode");
    }

    @Test
    void baseWithoutPathAndPathLeavingItsBase() throws IOException {
        Diagnostic d = error("sandbox:\n  allow:\n    - env: GOCACHE\n      base: userCache\n", "magus.yaml:4:13 sandbox.allow[0].base");
        assertThat(d.message()).contains("needs a path under it");
        error("sandbox:\n  allow:\n    - base: xdgData\n      path: ../../etc\n", "magus.yaml:4:13 sandbox.allow[0].path");
        error("sandbox:\n  allow:\n    - base: xdgData\n      path: /etc\n", "magus.yaml:4:13 sandbox.allow[0].path");
        error("sandbox:\n  allow:\n    - mode: rw\n", "magus.yaml:3:7 sandbox.allow[0]");
    }

    @Test
    void wrongTypes() throws IOException {
        error("sandbox: [a]\n", "magus.yaml:1:10 sandbox");
        error("sandbox:\n  mode: [required]\n", "magus.yaml:2:9 sandbox.mode");
        error("sandbox:\n  allow:\n    path: /x\n", "magus.yaml:3:5 sandbox.allow");
        error("sandbox:\n  allow:\n    - /x\n", "magus.yaml:3:7 sandbox.allow[0]");
        error("sandbox:\n  allow:\n    - path: {a: b}\n", "magus.yaml:3:13 sandbox.allow[0].path");
        error("sandbox:\n  allow:\n    - path:\n", "magus.yaml:3:12 sandbox.allow[0].path");
        error("sandbox:\n  env:\n    passthrough: MISE_*\n", "magus.yaml:3:18 sandbox.env.passthrough");
        error("- sandbox\n", "magus.yaml:1:1");
    }

    @Test
    void malformedPassthroughNamesItsEntry() throws IOException {
        Diagnostic d = error("sandbox:\n  env:\n    passthrough:\n      - GOFLAGS\n      - GO*\n",
                "magus.yaml:5:9 sandbox.env.passthrough[1]");
        assertThat(d.subject()).isEqualTo("GO*");
        error("sandbox:\n  env:\n    passthrough: [OK, 'bad name']\n", "magus.yaml:3:23 sandbox.env.passthrough[1]");
    }

    @Test
    void malformedYamlNamesLineAndColumn() throws IOException {
        Diagnostic d = error("sandbox:\n  mode: best-effort\n   allow: []\n", "magus.yaml:3:9");
        assertThat(d.message()).startsWith("malformed YAML: ");
        error("sandbox:\n  allow: [/x\n", "magus.yaml:3:1");
        // What was being read, then what was found: a second document is no place to hide a setting.
        Diagnostic two = error("sandbox: {mode: required}\n---\nsandbox: {mode: off}\n", "magus.yaml:2:1");
        assertThat(two.message()).isEqualTo("malformed YAML: expected a single document in the stream, but found another document");
    }

    @Test
    void settingsFailAtLoadDeclarationsWhenThePolicyIsBuilt() throws IOException {
        // A declaration that cannot be honored does not stop a workspace running with the sandbox off...
        WorkspaceConfig off = read("sandbox:\n  mode: off\n  allow:\n    - path: /x\n      mode: wx\n");
        assertThat(off.mode()).isEqualTo(Mode.OFF);
        assertThat(off.section()).isInstanceOf(WorkspaceConfig.Refused.class);
        // ...and is MGS2004 as soon as a policy asks for it.
        assertThatThrownBy(off::sandbox).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.MGS2004);
            assertThat(e.diagnostic().source()).isEqualTo("magus.yaml:5:13 sandbox.allow[0].mode");
        });
        // The settings themselves are refused at load.
        assertThatThrownBy(() -> read("sandbox:\n  mode: strict\n")).isInstanceOf(SandboxException.class);
        assertThatThrownBy(() -> read("sandbox:\n  mood: off\n")).isInstanceOf(SandboxException.class);
        assertThatThrownBy(() -> read("sandbox: [\n")).isInstanceOf(SandboxException.class);
    }

    @Test
    void aFileThatCannotBeReadIsMgs2004NamingIt() {
        Path absent = tmp.resolve("absent/magus.yaml");
        assertThatThrownBy(() -> WorkspaceConfig.parse(absent).config()).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.MGS2004);
            assertThat(e.diagnostic().source()).isEqualTo("magus.yaml");
            assertThat(e.diagnostic().details()).containsEntry("file", absent.toString());
        });
    }

    @Test
    void bytesThatAreNotUtf8AreNamedByLineAndColumn() throws IOException {
        Path f = Files.write(tmp.resolve("magus.yaml"), "sandbox:\n  mode: ré\u00e9\n  x: \u00ff".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        assertThatThrownBy(() -> WorkspaceConfig.parse(f).config()).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.diagnostic().source()).isEqualTo("magus.yaml:2:10");
            assertThat(e.diagnostic().message()).startsWith("not UTF-8: byte 0xe9 ");
        });
        // A byte-order mark is not an error, and columns count characters, not bytes.
        Files.write(f, ("\ufeffsandbox:\n  mode: required\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(WorkspaceConfig.parse(f).config().mode()).isEqualTo(Mode.REQUIRED);
        Files.write(f, concat("sandbox:\n  mode: é".getBytes(java.nio.charset.StandardCharsets.UTF_8), new byte[] {(byte) 0xc3}));
        assertThatThrownBy(() -> WorkspaceConfig.parse(f).config()).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().source()).isEqualTo("magus.yaml:2:10"));
    }

    @Test
    void aCharacterYamlForbidsIsNamedByLineAndColumn() throws IOException {
        Diagnostic d = error("sandbox:\n  mode: a\u0007b\n", "magus.yaml:2:10");
        assertThat(d.message()).isEqualTo("malformed YAML: character U+0007 is not allowed in YAML");
    }

    @Test
    void anUnquotedTildeSaysToQuoteIt() throws IOException {
        Diagnostic d = error("sandbox:\n  mode: required\n  allow:\n    - path: ~\n", "magus.yaml:4:13 sandbox.allow[0].path");
        assertThat(d.message()).contains("YAML's null").contains("quote it (path: \"~/...\")");
    }

    @Test
    void aNulInAPathIsMgs2004AtThePath() throws IOException {
        Diagnostic d = error("sandbox:\n  mode: required\n  allow:\n    - path: \"/opt/a\\0b\"\n",
                "magus.yaml:4:13 sandbox.allow[0].path");
        assertThat(d.message()).contains("NUL").contains("'/opt/a\\x00b'");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void readsTheNetworkSection() throws IOException {
        WorkspaceConfig c = read("""
                sandbox:
                  mode: required
                  network:
                    mode: proxy
                    allow: ["*.example.org", Example.COM]
                    ports: [5432]
                    bind: [3000, 3001]
                """);
        dev.magus.policy.decl.NetworkDecl n = c.sandbox().network();
        assertThat(n.mode()).contains(dev.magus.policy.net.NetworkMode.PROXY);
        assertThat(n.allow()).extracting(h -> h.text()).containsExactly("*.example.org", "example.com");
        assertThat(n.ports()).containsExactly(5432);
        assertThat(n.bind()).containsExactly(3000, 3001);
    }

    @Test
    void aNetworkSectionItCannotHonorIsMgs2004AtTheValue() throws IOException {
        error("""
                sandbox:
                  network:
                    mode: closed
                """, "magus.yaml:3:11 sandbox.network.mode");
        error("""
                sandbox:
                  network:
                    allow: [ok.example.org, "*"]
                """, "magus.yaml:3:29 sandbox.network.allow[1]");
        error("""
                sandbox:
                  network:
                    ports: [80, 99999]
                """, "magus.yaml:3:17 sandbox.network.ports[1]");
        error("""
                sandbox:
                  network:
                    proxy: true
                """, "magus.yaml:3:5 sandbox.network.proxy");
        error("""
                sandbox:
                  network: proxy
                """, "magus.yaml:2:12 sandbox.network");
    }

    @Test
    void readsUnixSocketsAsAWordOrAListOfPaths() throws IOException {
        assertThat(read("""
                sandbox:
                  network:
                    mode: none
                """).sandbox().network().unix()).isEmpty();
        assertThat(read("""
                sandbox:
                  network:
                    unix: allow
                """).sandbox().network().unix()).containsInstanceOf(dev.magus.policy.net.UnixSockets.Any.class);
        assertThat(read("""
                sandbox:
                  network:
                    unix: deny
                """).sandbox().network().unix().orElseThrow().allowsSocketCall()).isFalse();
        dev.magus.policy.net.UnixSockets listed = read("""
                sandbox:
                  network:
                    unix: [/run/postgresql/.s.PGSQL.5432, /tmp/x/../y.sock]
                """).sandbox().network().unix().orElseThrow();
        assertThat(listed).isEqualTo(new dev.magus.policy.net.UnixSockets.Paths(
                java.util.List.of(java.nio.file.Path.of("/run/postgresql/.s.PGSQL.5432"), java.nio.file.Path.of("/tmp/y.sock"))));
        assertThat(listed.allowsSocketCall()).isTrue();
        error("""
                sandbox:
                  network:
                    unix: [run/docker.sock]
                """, "magus.yaml:3:12 sandbox.network.unix[0]");
        error("""
                sandbox:
                  network:
                    unix: sometimes
                """, "magus.yaml:3:11 sandbox.network.unix[0]");
    }
}
