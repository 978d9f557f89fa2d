package dev.magus.policy;

import static dev.magus.policy.FakeHost.allow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.env.Allowlist;
import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.MergedDecl;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.policy.decl.Site;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.mode.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyBuilderTest {
    @TempDir
    Path tmp;
    FakeHost h;

    @BeforeEach
    void host() {
        h = new FakeHost(tmp);
    }

    private Policy build(HostFacts facts, MergedDecl declared) {
        return new PolicyBuilder(facts).policy(Mode.BEST_EFFORT, h.ws, declared);
    }

    private static Optional<AccessMode> ruleAt(Policy p, Path path) {
        return p.rules().stream().filter(r -> r.path().equals(path)).map(Rule::mode).findFirst();
    }

    @Test
    void coreFootprintOfAFakeHost() throws IOException {
        Policy p = build(h.facts(), MergedDecl.EMPTY);
        assertThat(ruleAt(p, h.ws)).contains(AccessMode.RWX);
        assertThat(ruleAt(p, h.cache)).contains(AccessMode.RW);
        assertThat(ruleAt(p, h.install)).contains(AccessMode.RX);
        assertThat(ruleAt(p, h.temp)).contains(AccessMode.RWX);
        // The system paths of the core: granted when they exist here, skipped and noted when not.
        for (String sys : List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc", "/sys",
                "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")) {
            Path path = Path.of(sys);
            if (Files.exists(path)) {
                Path real = path.toRealPath();
                AccessMode expected = sys.startsWith("/dev/") ? AccessMode.RW
                        : List.of("/etc", "/proc", "/sys").contains(sys) ? AccessMode.R : AccessMode.RX;
                assertThat(p.ruleset().granted(real).covers(expected)).as(sys).isTrue();
            } else {
                assertThat(p.notes()).as(sys).anySatisfy(n -> {
                    assertThat(n.kind()).isEqualTo(PolicyNote.Kind.SKIPPED);
                    assertThat(n.subject()).isEqualTo(sys);
                    assertThat(n.describe()).startsWith("skipped: ").contains("does not exist");
                });
            }
        }
        // Nothing else: not home, not the shared temp dirs, not /opt or /run.
        for (Path never : List.of(h.home, h.home.resolve(".ssh/id_rsa"), Path.of("/tmp/x"), Path.of("/var/tmp/x"),
                Path.of("/opt/x"), Path.of("/run/x"))) {
            assertThat(p.ruleset().granted(never)).as(never.toString()).isEqualTo(AccessMode.NONE);
        }
        assertThat(p.env()).isEqualTo(Allowlist.EMPTY);
        assertThat(p.mode()).isEqualTo(Mode.BEST_EFFORT);
        assertThat(p.workspaceRoot()).isEqualTo(h.ws);
    }

    @Test
    void macosCoreHasNoProcOrSys() {
        HostFacts mac = HostFacts.of(Map.of(), h.home, 501, HostFacts.Os.MACOS, List.of(h.install), h.temp);
        Policy p = build(mac, MergedDecl.EMPTY);
        assertThat(p.ruleset().granted(Path.of("/proc/self/status"))).isEqualTo(AccessMode.NONE);
        assertThat(p.ruleset().granted(Path.of("/sys/kernel"))).isEqualTo(AccessMode.NONE);
        assertThat(ruleAt(p, h.ws)).contains(AccessMode.RWX);
        assertThat(p.notes()).extracting(PolicyNote::origin).doesNotContain("core:/proc");
    }

    @Test
    void missingCacheAndInstallationAreSkippedNotGranted() throws IOException {
        Files.delete(h.cache);
        HostFacts facts = HostFacts.linux(Map.of(), h.home, List.of(h.root.resolve("nowhere/jdk")), h.temp);
        Policy p = build(facts, MergedDecl.EMPTY);
        assertThat(ruleAt(p, h.cache)).isEmpty();
        assertThat(p.notes()).extracting(PolicyNote::origin).contains("core:cache", "core:installation");
    }

    @Test
    void magusCacheFollowsXdgCacheHome() {
        Path xdg = FakeHost.mkdirs(h.root.resolve("xdg-cache/magus"));
        Policy p = build(h.facts(Map.of("XDG_CACHE_HOME", xdg.getParent().toString())), MergedDecl.EMPTY);
        assertThat(ruleAt(p, xdg)).contains(AccessMode.RW);
        assertThat(ruleAt(p, h.cache)).isEmpty();
    }

    @Test
    void offBuildsNothing() {
        SandboxDecl unset = new SandboxDecl(List.of(allow(DeclLayer.workspace(), "$UNSET/x", "rw")), Allowlist.EMPTY,
                DeclLayer.workspace());
        PolicyOrOff off = new PolicyBuilder(h.facts()).build(Mode.OFF, h.ws, unset, List.of(), Optional.empty());
        assertThat(off).isSameAs(PolicyOrOff.off());
        assertThat(off.policy()).isEmpty();
        assertThat(off.check(Access.WRITE, Path.of("/etc/passwd"), h.ws).allowed()).isTrue();
        assertThatThrownBy(() -> new PolicyBuilder(h.facts()).build(Mode.REQUIRED, h.ws, unset, List.of(), Optional.empty()))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.code()).isEqualTo(Code.MGS2004));
    }

    @Test
    void sameDirectoryAtTwoLayersGetsBothModes() {
        Path tools = FakeHost.mkdirs(h.root.resolve("tools"));
        SandboxDecl ws = new SandboxDecl(List.of(allow(DeclLayer.workspace(), tools.toString(), "rx")), Allowlist.EMPTY,
                DeclLayer.workspace());
        SandboxDecl go = new SandboxDecl(List.of(allow(DeclLayer.spell("go"), tools + "/", "rw")),
                Allowlist.parse(List.of("GOFLAGS"), "spell:go"), DeclLayer.spell("go"));
        SandboxDecl test = new SandboxDecl(List.of(), Allowlist.parse(List.of("FIXTURES_DIR"), "target:test"),
                DeclLayer.target("test"));
        Policy p = (Policy) new PolicyBuilder(h.facts()).build(Mode.BEST_EFFORT, h.ws, ws, List.of(go), Optional.of(test));
        assertThat(p.rules()).filteredOn(r -> r.path().equals(tools)).singleElement().satisfies(r -> {
            assertThat(r.mode()).isEqualTo(AccessMode.RWX);
            assertThat(r.origin()).contains("workspace:sandbox.allow[0]").contains("spell:go");
        });
        assertThat(p.env().entries()).containsExactlyInAnyOrder("GOFLAGS", "FIXTURES_DIR");
    }

    @Test
    void declaredLocationsThatGrantNothingAreNoted() {
        SandboxAllow gocache = SandboxAllow.declare(Optional.empty(), Optional.of("GOCACHE"), Optional.of("userCache"),
                Optional.of("go-build"), Optional.of("rwx"), DeclLayer.spell("go"), Site.of("spell:go", "sandbox.allow[0]"));
        SandboxAllow xdg = SandboxAllow.declare(Optional.of("mise"), Optional.empty(), Optional.of("xdgCache"),
                Optional.of("mise"), Optional.of("rw"), DeclLayer.spell("mise"), Site.of("spell:mise", "sandbox.allow[0]"));
        Policy off = build(h.facts(Map.of("GOCACHE", "off")), new MergedDecl(List.of(gocache), Allowlist.EMPTY));
        assertThat(off.notes()).anySatisfy(n -> {
            assertThat(n.kind()).isEqualTo(PolicyNote.Kind.GRANTS_NOTHING);
            assertThat(n.origin()).isEqualTo("spell:go");
            assertThat(n.describe()).isEqualTo("grants nothing: $GOCACHE=off is not an absolute path");
        });
        Policy home = build(h.facts(Map.of("XDG_CACHE_HOME", h.home.toString())), new MergedDecl(List.of(xdg), Allowlist.EMPTY));
        assertThat(home.notes()).anySatisfy(n -> assertThat(n.describe()).startsWith("grants nothing: $XDG_CACHE_HOME="));
        assertThat(home.ruleset().granted(h.home.resolve("mise"))).isEqualTo(AccessMode.NONE);
    }

    @Test
    void aDeclaredLinkToHomeGrantsNothing() throws IOException {
        Path link = Files.createSymbolicLink(h.root.resolve("homelink"), h.home);
        Policy p = build(h.facts(), new MergedDecl(List.of(allow(DeclLayer.spell("x"), link.toString(), "rw")), Allowlist.EMPTY));
        assertThat(p.ruleset().granted(h.home.resolve(".ssh"))).isEqualTo(AccessMode.NONE);
        assertThat(p.notes()).anySatisfy(n -> assertThat(n.describe()).contains("resolves to ~"));
    }

    @Test
    void declaredRulesAreResolvedAndMissingOnesSkipped() throws IOException {
        Path real = FakeHost.mkdirs(h.root.resolve("real/cache"));
        Path link = Files.createSymbolicLink(h.root.resolve("cachelink"), real);
        Policy p = build(h.facts(), new MergedDecl(List.of(
                allow(DeclLayer.spell("a"), link.toString(), "rw"),
                allow(DeclLayer.spell("b"), h.root.resolve("absent").toString(), "rw")), Allowlist.EMPTY));
        assertThat(ruleAt(p, real)).contains(AccessMode.RW);
        assertThat(ruleAt(p, link)).isEmpty();
        assertThat(p.notes()).anySatisfy(n -> {
            assertThat(n.origin()).isEqualTo("spell:b");
            assertThat(n.kind()).isEqualTo(PolicyNote.Kind.SKIPPED);
        });
    }
}
