package dev.magus.policy;

import dev.magus.env.platform.Platform;
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
import dev.magus.events.Mode;
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
    void coreFootprintOfAFakeHost() {
        Policy p = build(h.facts(), MergedDecl.EMPTY);
        assertThat(ruleAt(p, h.ws)).contains(AccessMode.RWX);
        assertThat(ruleAt(p, h.cache)).contains(AccessMode.RW);
        assertThat(ruleAt(p, h.install)).contains(AccessMode.RX);
        assertThat(ruleAt(p, h.temp)).contains(AccessMode.RWX);
        // The system paths of the core, each accounted for once: a rule of its own origin where
        // this host has it, a note where it does not. What exactly a given host gets, rule by
        // rule, is InMemoryHostPolicyTest's; this one holds on whatever host it runs.
        for (String sys : List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc", "/sys",
                "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")) {
            AccessMode expected = sys.startsWith("/dev/") ? AccessMode.RW
                    : List.of("/etc", "/proc", "/sys").contains(sys) ? AccessMode.R : AccessMode.RX;
            List<Rule> granted = p.rules().stream().filter(r -> List.of(r.origin().split(", ")).contains("core:" + sys)).toList();
            List<PolicyNote> noted = p.notes().stream().filter(n -> n.origin().equals("core:" + sys)).toList();
            assertThat(granted.size() + noted.size()).as(sys).isEqualTo(1);
            granted.forEach(r -> assertThat(r.mode().covers(expected)).as(sys).isTrue());
            noted.forEach(n -> {
                assertThat(n.kind()).isEqualTo(PolicyNote.Kind.SKIPPED);
                assertThat(n.subject()).isEqualTo(sys);
                assertThat(n.describe()).isEqualTo("skipped: " + sys + " does not exist on this host");
            });
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
        HostFacts mac = HostFacts.of(Map.of(), h.home, 501, Platform.MACOS, List.of(h.install), h.temp);
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

    private static SandboxAllow inWorkspace(String path, String mode) {
        return SandboxAllow.declare(Optional.empty(), Optional.empty(), Optional.of("workspace"), Optional.of(path),
                Optional.of(mode), DeclLayer.workspace(), Site.of("magus.yaml", "sandbox.allow[0]"));
    }

    private static MergedDecl declared(SandboxAllow... allow) {
        return new MergedDecl(List.of(allow), Allowlist.EMPTY);
    }

    @Test
    void aRulePathsDotDotClimbsOutOfTheResolvedDirectoryNotTheSpelling() throws IOException {
        Path out = FakeHost.mkdirs(h.root.resolve("OUT"));
        FakeHost.mkdirs(out.resolve("x"));
        FakeHost.write(h.home.resolve(".ssh/id_rsa"), "FAKE KEY\n");
        FakeHost.mkdirs(h.home.resolve("x"));
        Files.createSymbolicLink(out.resolve("lnk"), h.home.resolve(".ssh"));
        String spelled = out + "/lnk/../x";
        Policy p = build(h.facts(), declared(allow(DeclLayer.spell("s"), spelled, "rw")));
        // The kernel takes lnk/.. from ~/.ssh: the rule is ~/x, as a request for the same spelling.
        assertThat(ruleAt(p, h.home.resolve("x"))).contains(AccessMode.RW);
        assertThat(p.ruleset().granted(out.resolve("x"))).isEqualTo(AccessMode.NONE);
        assertThat(p.check(Access.WRITE, Path.of(spelled), h.ws)).isEqualTo(new Verdict.Allowed(h.home.resolve("x")));
        assertThat(p.check(Access.READ, h.home.resolve(".ssh/id_rsa"), h.ws).allowed()).isFalse();
    }

    @Test
    void homeAndItsAncestorsGrantNothingOnceResolved() throws IOException {
        FakeHost.mkdirs(h.home.resolve("x"));
        Path opt = h.root.resolve("opt");
        Files.createSymbolicLink(h.home.resolve("tools"), opt.resolve("magus"));
        Path homeLink = Files.createSymbolicLink(h.root.resolve("homelink"), h.home);
        Policy p = build(h.facts(), declared(
                allow(DeclLayer.spell("tilde"), "~", "rw"),
                allow(DeclLayer.spell("dotdot"), "~/x/..", "rw"),
                allow(DeclLayer.spell("missing"), "~/nothing/..", "rw"),
                allow(DeclLayer.spell("linked"), homeLink + "/.", "rw"),
                allow(DeclLayer.spell("above"), homeLink + "/..", "rw"),
                allow(DeclLayer.workspace(), "$HOME", "rw"),
                // ~/tools/.. is beside the link's target, which is not home: granted.
                allow(DeclLayer.spell("beside"), "~/tools/..", "rx")));
        for (String origin : List.of("spell:tilde", "spell:dotdot", "spell:missing", "spell:linked", "spell:above",
                "workspace:sandbox.allow[0]")) {
            assertThat(p.notes()).as(origin).anySatisfy(n -> {
                assertThat(n.origin()).isEqualTo(origin);
                assertThat(n.kind()).isEqualTo(PolicyNote.Kind.GRANTS_NOTHING);
                assertThat(n.why()).contains("the home directory or an ancestor of it");
            });
        }
        assertThat(p.ruleset().granted(h.home.resolve(".ssh/id_rsa"))).isEqualTo(AccessMode.NONE);
        assertThat(p.ruleset().granted(h.root.resolve("home"))).isEqualTo(AccessMode.NONE);
        assertThat(ruleAt(p, opt)).as("rules %s, notes %s", p.rules(), p.notes()).contains(AccessMode.RX);

        // The base home is ~ by definition: a path under it is granted as ever.
        SandboxAllow modCache = SandboxAllow.declare(Optional.empty(), Optional.empty(), Optional.of("home"),
                Optional.of("go/pkg/mod"), Optional.of("rw"), DeclLayer.spell("go"), Site.of("spell:go", "sandbox.allow[1]"));
        Path mod = FakeHost.mkdirs(h.home.resolve("go/pkg/mod"));
        assertThat(ruleAt(build(h.facts(), declared(modCache)), mod)).contains(AccessMode.RW);

        // A base that resolves to home grants nothing under it either.
        SandboxAllow goBuild = SandboxAllow.declare(Optional.empty(), Optional.empty(), Optional.of("xdgCache"),
                Optional.of("go-build"), Optional.of("rw"), DeclLayer.spell("go"), Site.of("spell:go", "sandbox.allow[0]"));
        FakeHost.mkdirs(h.home.resolve("go-build"));
        Policy viaBase = build(h.facts(Map.of("XDG_CACHE_HOME", homeLink.toString())), declared(goBuild));
        assertThat(viaBase.ruleset().granted(h.home.resolve("go-build"))).isEqualTo(AccessMode.NONE);
        assertThat(viaBase.notes()).anySatisfy(n -> assertThat(n.why()).startsWith("the base of xdgCache/go-build")
                .contains("resolves to the home directory"));
    }

    @Test
    void aDeclaredPathThroughALinkPlantedInTheWorkspaceGrantsNothing() throws IOException {
        FakeHost.write(h.home.resolve(".ssh/id_rsa"), "FAKE KEY\n");
        Path system = FakeHost.mkdirs(h.root.resolve("etc"));
        // What a confined child leaves behind: out replaced by a link out of the workspace.
        Files.createSymbolicLink(h.ws.resolve("out"), h.home.resolve(".ssh"));
        Files.createSymbolicLink(h.ws.resolve("gen"), system);
        FakeHost.mkdirs(h.ws.resolve("build/real"));
        Files.createSymbolicLink(h.ws.resolve("inside"), Path.of("build/real"));
        Policy p = build(h.facts(), declared(inWorkspace("out", "rw"), inWorkspace("gen/sub", "rw"),
                allow(DeclLayer.spell("abs"), h.ws.resolve("gen").toString(), "rw"), inWorkspace("inside", "rwx")));
        assertThat(p.ruleset().granted(h.home.resolve(".ssh/id_rsa"))).isEqualTo(AccessMode.NONE);
        assertThat(p.ruleset().granted(system.resolve("passwd"))).isEqualTo(AccessMode.NONE);
        assertThat(p.notes()).filteredOn(n -> n.why().contains("a symbolic link inside")).hasSize(3).allSatisfy(n -> {
            assertThat(n.kind()).isEqualTo(PolicyNote.Kind.GRANTS_NOTHING);
            assertThat(n.why()).contains("(which a confined run can write)").contains("declare ");
        });
        assertThat(p.notes()).anySatisfy(n -> assertThat(n.why()).contains(h.ws.resolve("out") + " goes through "
                + h.ws.resolve("out") + ", a symbolic link inside " + h.ws + " (which a confined run can write), to ~/.ssh"));
        // A link that stays inside the workspace grants as declared.
        assertThat(ruleAt(p, h.ws.resolve("build/real"))).contains(AccessMode.RWX);
        assertThat(p.check(Access.READ, h.ws.resolve("out/id_rsa"), h.ws).allowed()).isFalse();
        assertThat(p.check(Access.WRITE, h.ws.resolve("gen/passwd"), h.ws).allowed()).isFalse();
    }

    @Test
    void aCoreLocationThroughALinkPlantedInTheWorkspaceGrantsNothing() throws IOException {
        // A cache dir inside the workspace (XDG_CACHE_HOME pointed there, as CI jobs do) replaced by a link.
        Path outside = FakeHost.mkdirs(h.root.resolve("outside"));
        FakeHost.mkdirs(h.ws.resolve(".cache"));
        Files.createSymbolicLink(h.ws.resolve(".cache/magus"), outside);
        Policy p = build(h.facts(Map.of("XDG_CACHE_HOME", h.ws.resolve(".cache").toString())), MergedDecl.EMPTY);
        assertThat(p.ruleset().granted(outside.resolve("x"))).isEqualTo(AccessMode.NONE);
        assertThat(p.notes()).anySatisfy(n -> {
            assertThat(n.origin()).isEqualTo("core:cache");
            assertThat(n.why()).contains("a symbolic link inside " + h.ws);
        });
    }
}
