package dev.magus.policy;

import dev.magus.events.DetailKey;
import static dev.magus.policy.FakeHost.allow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.env.Allowlist;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.MergedDecl;
import dev.magus.policy.fs.Access;
import dev.magus.events.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyCheckTest {
    @TempDir
    Path tmp;
    FakeHost h;
    Path tools;
    Path scratch;
    Policy policy;

    @BeforeEach
    void build() throws IOException {
        h = new FakeHost(tmp);
        tools = FakeHost.mkdirs(h.root.resolve("tools/bin"));
        scratch = FakeHost.mkdirs(h.root.resolve("scratch"));
        FakeHost.write(h.home.resolve(".ssh/id_rsa"), "FAKE KEY\n");
        FakeHost.write(h.home.resolve(".npmrc"), "//registry.example/:_authToken=FAKEFAKEFAKE\n");
        policy = new PolicyBuilder(h.facts()).policy(Mode.BEST_EFFORT, h.ws, new MergedDecl(List.of(
                allow(DeclLayer.workspace(), tools.toString(), "rx"),
                allow(DeclLayer.spell("go"), scratch.toString(), "rw")), Allowlist.EMPTY));
    }

    private Diagnostic denied(Access op, Path path, Code code) {
        Verdict v = policy.check(op, path, h.ws);
        assertThat(v).isInstanceOf(Verdict.Denied.class);
        Diagnostic d = ((Verdict.Denied) v).diagnostic();
        assertThat(d.code()).isEqualTo(code);
        assertThat(d.layer()).isEqualTo(Layer.BINDING);
        assertThat(d.source()).isEqualTo("binding");
        assertThat(d.operation()).isEqualTo(op.operation());
        assertThat(d.details()).containsEntry("requested", path.toString());
        return d;
    }

    private Path allowed(Access op, Path path) {
        Verdict v = policy.check(op, path, h.ws);
        assertThat(v).as("%s %s: %s", op, path, v).isInstanceOf(Verdict.Allowed.class);
        return ((Verdict.Allowed) v).resolved();
    }

    @Test
    void readsInsideTheWorkspaceAndDeclaredDirsAreAllowed() {
        assertThat(allowed(Access.READ, Path.of("src/main.go"))).isEqualTo(h.ws.resolve("src/main.go"));
        allowed(Access.READ, tools.resolve("tool"));
        allowed(Access.WRITE, scratch.resolve("out.bin"));
        allowed(Access.WRITE, h.ws.resolve("build/out"));
        allowed(Access.WRITE, h.temp.resolve("x"));
    }

    @Test
    void aReadOutsideIsMgs2001WithNearestRuleAndTheYamlToAllowIt() throws IOException {
        FakeHost.write(h.home.resolve(".toolrc"), "x\n");
        Diagnostic d = denied(Access.READ, h.home.resolve(".toolrc"), Code.MGS2001);
        assertThat(d.subject()).isEqualTo(h.home.resolve(".toolrc").toString());
        assertThat(d.message()).isEqualTo("read denied: ~/.toolrc is outside every read rule");
        // A file right under home is declared as itself: its directory would grant nothing.
        assertThat(d.details()).containsEntry("allow_yaml", "sandbox:\n  allow:\n    - path: \"~/.toolrc\"\n      mode: ro\n");
        assertThat(d.details()).containsEntry("nearest_rule", "~/.cache/magus rw (core:cache)")
                .containsEntry(DetailKey.CLASS.key(), "hint");
    }

    @Test
    void theJvmsOwnProbesAreBenignAndSaySo() {
        // /proc/self resolves to this JVM's pid, as it would to the child's.
        Diagnostic core = denied(Access.WRITE, Path.of("/proc/self/coredump_filter"), Code.MGS2002);
        assertThat(core.details()).containsEntry(DetailKey.CLASS.key(), "benign").doesNotContainKey("allow_yaml");
        assertThat(core.message()).contains("(benign: the JVM sets its own core-dump filter");
        Diagnostic perf = denied(Access.WRITE, Path.of("/tmp/hsperfdata_someone/4242"), Code.MGS2002);
        assertThat(perf.details()).containsEntry(DetailKey.CLASS.key(), "benign");
    }

    @Test
    void aCredentialStoreIsCalledAnAttackAndNothingIsSuggested() {
        Diagnostic d = denied(Access.READ, h.home.resolve(".npmrc"), Code.MGS2001);
        assertThat(d.message()).startsWith("read denied: ~/.npmrc is outside every read rule; this looks like an attack");
        assertThat(d.details()).doesNotContainKey("allow_yaml").containsEntry(DetailKey.CLASS.key(), "attack")
                .containsKey("attack");
        assertThat(denied(Access.WRITE, h.home.resolve(".bashrc"), Code.MGS2002).details())
                .doesNotContainKey("allow_yaml").containsEntry(DetailKey.CLASS.key(), "attack");
    }

    @Test
    void aWriteOutsideIsMgs2002AndSuggestsTheDirectory() throws IOException {
        FakeHost.mkdirs(h.home.resolve(".cache/tool"));
        Diagnostic d = denied(Access.WRITE, h.home.resolve(".cache/tool/ab/cd"), Code.MGS2002);
        assertThat(d.message()).isEqualTo("write denied: ~/.cache/tool/ab/cd is outside every write rule");
        assertThat(d.details()).containsEntry("allow_yaml", "sandbox:\n  allow:\n    - path: \"~/.cache/tool\"\n      mode: rw\n");
        // Read-only grant: the nearest rule is the one lacking the bit.
        Diagnostic tool = denied(Access.WRITE, tools.resolve("new"), Code.MGS2002);
        assertThat(tool.details().get("nearest_rule")).isEqualTo(tools + " rx (workspace:sandbox.allow[0])");
        // ... and the hint widens that rule rather than adding a narrower one beside it.
        assertThat(tool.details()).containsEntry("allow_yaml", "sandbox:\n  allow:\n    # widens " + tools
                + " rx (workspace:sandbox.allow[0]) to rwx\n    - path: " + tools + "\n      mode: rwx\n");
        // A new directory under home is declared as that directory, never as all of ~.
        Diagnostic fresh = denied(Access.WRITE, h.home.resolve(".newtool/cache/x"), Code.MGS2002);
        assertThat(fresh.details().get("allow_yaml")).contains("path: \"~/.newtool\"\n")
                .contains("# ~/.newtool does not exist yet: create it first");
    }

    @Test
    void execNeedsTheExecBit() throws IOException {
        Path inRw = exe(scratch.resolve("dropped"));
        Path inRx = exe(tools.resolve("tool"));
        Diagnostic d = denied(Access.EXEC, inRw, Code.MGS2007);
        assertThat(d.message()).contains("a binary outside every exec rule");
        assertThat(d.details().get("nearest_rule")).isEqualTo(scratch + " rw (spell:go)");
        assertThat(d.details().get("allow_yaml")).endsWith("mode: rx\n");
        assertThat(allowed(Access.EXEC, inRx)).isEqualTo(inRx);
        // Readable is not executable (/etc is r only): InMemoryHostPolicyTest, on a host that surely has /etc.
        // A binary dropped in ~/Downloads is checked where it lies.
        denied(Access.EXEC, exe(h.home.resolve("Downloads/curl")), Code.MGS2007);
    }

    @Test
    void unqualifiedCommandsAreCheckedWhereLookPathFindsThem() throws IOException {
        Path tool = exe(tools.resolve("mytool"));
        exe(scratch.resolve("mytool"));
        Path found = LookPath.find("mytool", tools + ":" + scratch, h.ws).orElseThrow();
        assertThat(found).isEqualTo(tool);
        assertThat(policy.check(Access.EXEC, found, h.ws).allowed()).isTrue();
        Path shadow = LookPath.find("mytool", scratch + ":" + tools, h.ws).orElseThrow();
        assertThat(policy.check(Access.EXEC, shadow, h.ws).allowed()).isFalse();
        assertThat(LookPath.find("absent-tool", tools.toString(), h.ws)).isEmpty();
        FakeHost.write(tools.resolve("notexec"), "");
        assertThat(LookPath.find("notexec", tools.toString(), h.ws)).isEmpty();
        Path local = exe(h.ws.resolve("gradlew"));
        assertThat(LookPath.find("./gradlew", "", h.ws)).contains(h.ws.resolve("./gradlew"));
        assertThat(policy.check(Access.EXEC, LookPath.find("./gradlew", "", h.ws).orElseThrow(), h.ws).orThrow()).isEqualTo(local);
        if (Files.isExecutable(Path.of("/usr/bin/env"))) {
            Path env = LookPath.find("env", "/usr/bin", h.ws).orElseThrow();
            assertThat(policy.check(Access.EXEC, env, h.ws).allowed()).isTrue();
        }
    }

    @Test
    void aControlFileWriteIsDeniedInsideTheWorkspaceAndItsReadAllowed() {
        Path hook = h.ws.resolve("sub/.git/hooks/pre-commit");
        Diagnostic d = denied(Access.WRITE, hook, Code.MGS2002);
        assertThat(d.details()).containsEntry("control_file", ".git/hooks/");
        assertThat(d.message()).contains("control file (.git/hooks/)").contains("another tool follows later, outside any sandbox");
        assertThat(d.details()).doesNotContainKey("allow_yaml");
        denied(Access.WRITE, h.ws.resolve(".envrc"), Code.MGS2002);
        denied(Access.WRITE, h.ws.resolve("magus.yaml"), Code.MGS2002);
        allowed(Access.READ, hook);
        allowed(Access.READ, h.ws.resolve(".envrc"));
        allowed(Access.WRITE, h.ws.resolve("magus"));
    }

    @Test
    void dotDotAfterALinkClimbsOutOfWhereTheLinkLeads() throws IOException {
        Path config = FakeHost.mkdirs(h.home.resolve(".config"));
        Files.createSymbolicLink(h.ws.resolve("link"), config);
        Path requested = Path.of("link/../x");
        Verdict v = policy.check(Access.WRITE, requested, h.ws);
        assertThat(v).isInstanceOfSatisfying(Verdict.Denied.class, den -> {
            assertThat(den.diagnostic().subject()).isEqualTo(h.home.resolve("x").toString());
            assertThat(den.diagnostic().details()).containsEntry("requested", "link/../x");
            assertThat(den.diagnostic().message()).contains("~/x (requested as link/../x)");
        });
        assertThat(policy.check(Access.READ, requested, h.ws).allowed()).isFalse();
    }

    @Test
    void aLinkInTheWorkspaceToSshGrantsNothing() throws IOException {
        Files.createSymbolicLink(h.ws.resolve("keys"), h.home.resolve(".ssh"));
        Diagnostic d = denied(Access.READ, h.ws.resolve("keys/id_rsa"), Code.MGS2001);
        assertThat(d.subject()).isEqualTo(h.home.resolve(".ssh/id_rsa").toString());
    }

    @Test
    void aDanglingLinkToOutsideIsRefusedForWrite() throws IOException {
        Path target = h.home.resolve(".bashrc");
        Files.createSymbolicLink(h.ws.resolve("profile"), target);
        assertThat(Files.exists(target)).isFalse();
        Diagnostic d = denied(Access.WRITE, h.ws.resolve("profile"), Code.MGS2002);
        assertThat(d.subject()).isEqualTo(target.toString());
        assertThatThrownBy(() -> policy.check(Access.WRITE, h.ws.resolve("profile"), h.ws).orThrow())
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.code()).isEqualTo(Code.MGS2002));
    }

    @Test
    void aLinkLoopIsMgs2009() throws IOException {
        Files.createSymbolicLink(h.ws.resolve("a"), h.ws.resolve("b"));
        Files.createSymbolicLink(h.ws.resolve("b"), h.ws.resolve("a"));
        Diagnostic d = denied(Access.READ, h.ws.resolve("a/x"), Code.MGS2009);
        assertThat(d.operation()).isEqualTo(Operation.READ);
        assertThat(d.details()).containsKey("reached");
    }

    private static Path exe(Path p) throws IOException {
        FakeHost.write(p, "#!/bin/sh\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }
}
