package dev.magus.policy.net;

import dev.magus.policy.decl.NetworkDecl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.env.Allowlist;
import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.MergedDecl;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.policy.decl.Site;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NetworkPolicyTest {

    static NetworkDecl decl(DeclLayer layer, Optional<String> mode, List<String> allow, List<String> ports, List<String> bind) {
        return NetworkDecl.declare(mode, allow, ports, bind, layer, Site.of(layer.label(), "sandbox.network"));
    }

    static SandboxException refusal(Runnable r) {
        try {
            r.run();
        } catch (SandboxException e) {
            return e;
        }
        throw new AssertionError("not refused");
    }

    @Test
    void modeIsTheWorkspacesAndGrantsUnionAcrossLayersNamingEachLayer() {
        DeclLayer ws = DeclLayer.workspace();
        SandboxDecl workspace = new SandboxDecl(List.of(), Allowlist.EMPTY,
                decl(ws, Optional.of("proxy"), List.of("*.example.org", "registry.npmjs.org"), List.of("5432"), List.of()), ws);
        SandboxDecl node = new SandboxDecl(List.of(), Allowlist.EMPTY,
                decl(DeclLayer.spell("node"), Optional.empty(), List.of("registry.npmjs.org", "registry.yarnpkg.com"),
                        List.of(), List.of()), DeclLayer.spell("node"));
        SandboxDecl dev = new SandboxDecl(List.of(), Allowlist.EMPTY,
                decl(DeclLayer.target("dev"), Optional.empty(), List.of(), List.of("5432"), List.of("3000")), DeclLayer.target("dev"));
        NetworkPolicy n = MergedDecl.merge(workspace, List.of(node), Optional.of(dev)).network()
                .withHosts(NetworkDecl.flagHosts(List.of("Mirror.Example.COM", "registry.npmjs.org")));
        assertThat(n.mode()).isEqualTo(NetworkMode.PROXY);
        assertThat(n.allow()).extracting(g -> g.pattern().text() + " " + g.origins()).containsExactly(
                "*.example.org [workspace]",
                "registry.npmjs.org [workspace, spell:node, --allow-host]",
                "registry.yarnpkg.com [spell:node]",
                "mirror.example.com [--allow-host]");
        assertThat(n.ports()).isEqualTo(Map.of(5432, List.of("workspace", "target:dev")));
        assertThat(n.bind()).isEqualTo(Map.of(3000, List.of("target:dev")));
        assertThat(n.grantFor("a.example.org").orElseThrow().pattern().text()).isEqualTo("*.example.org");
        assertThat(n.grantFor("mirror.example.com").orElseThrow().origins()).containsExactly("--allow-host");
        assertThat(n.grantFor("evil.com")).isEmpty();
    }

    @Test
    void withoutANetworkSectionTheRunIsOpen() {
        MergedDecl m = MergedDecl.merge(SandboxDecl.empty(DeclLayer.workspace()), List.of(), Optional.empty());
        assertThat(m.network().mode()).isEqualTo(NetworkMode.OPEN);
        assertThat(m.network().declaresAnything()).isFalse();
        assertThat(MergedDecl.EMPTY.network()).isEqualTo(NetworkPolicy.OPEN);
    }

    @Test
    void onlyTheWorkspaceSetsTheMode() {
        SandboxException e = refusal(() -> decl(DeclLayer.spell("node"), Optional.of("open"), List.of(), List.of(), List.of()));
        assertThat(e.code()).isEqualTo(Code.MGS2004);
        assertThat(e.diagnostic().source()).isEqualTo("spell:node sandbox.network.mode");
        assertThat(e.getMessage()).contains("workspace's alone");
    }

    @Test
    void everyBadValueIsMgs2004AtItsOwnKeyAndPosition() {
        Site site = new Site("magus.yaml:4:5", "sandbox.network",
                Map.of("mode", "magus.yaml:5:11", "allow[1]", "magus.yaml:6:28", "ports[0]", "magus.yaml:7:13"));
        DeclLayer ws = DeclLayer.workspace();
        SandboxException mode = refusal(() -> NetworkDecl.declare(Optional.of("closed"), List.of(), List.of(), List.of(), ws, site));
        assertThat(mode.diagnostic().source()).isEqualTo("magus.yaml:5:11 sandbox.network.mode");
        assertThat(mode.getMessage()).contains("unknown network mode 'closed'").contains("open, none or proxy");
        SandboxException star = refusal(() -> NetworkDecl.declare(Optional.empty(), List.of("ok.org", "*"), List.of(), List.of(), ws, site));
        assertThat(star.diagnostic().source()).isEqualTo("magus.yaml:6:28 sandbox.network.allow[1]");
        assertThat(star.getMessage()).contains("every host");
        for (String bad : List.of("0", "65536", "-1", "http", "80.5", "")) {
            SandboxException port = refusal(() -> NetworkDecl.declare(Optional.empty(), List.of(), List.of(bad), List.of(), ws, site));
            assertThat(port.diagnostic().source()).isEqualTo("magus.yaml:7:13 sandbox.network.ports[0]");
            assertThat(port.getMessage()).contains("not a TCP port");
        }
        SandboxException bind = refusal(() -> NetworkDecl.declare(Optional.empty(), List.of(), List.of(), List.of("3000", "70000"), ws, site));
        assertThat(bind.diagnostic().source()).isEqualTo("magus.yaml:4:5 sandbox.network.bind[1]");
    }

    @Test
    void aBadAllowHostFlagNamesTheFlag() {
        SandboxException e = refusal(() -> NetworkPolicy.OPEN.withHosts(NetworkDecl.flagHosts(List.of("*.com"))));
        assertThat(e.code()).isEqualTo(Code.MGS2004);
        assertThat(e.diagnostic().source()).isEqualTo("--allow-host *.com");
    }

    @Test
    void aSpellCannotCarryAModeEvenByConstruction() {
        NetworkDecl withMode = decl(DeclLayer.workspace(), Optional.of("none"), List.of(), List.of(), List.of());
        assertThatThrownBy(() -> new SandboxDecl(List.of(), Allowlist.EMPTY, withMode, DeclLayer.spell("x")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void namesResolvingInsideAreRefusedUnlessDeclaredExactly() throws Exception {
        NetworkPolicy n = NetworkPolicy.merge(List.of((decl(DeclLayer.workspace(), Optional.of("proxy"),
                List.of("*.example.org", "local.example.org", "repo.example.com"), List.of(), List.of())).layered("workspace")));
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        InetAddress metadata = InetAddress.getByName("169.254.169.254");
        InetAddress publicAddress = InetAddress.getByName("93.184.216.34");
        assertThat(n.decide("evil.com", List.of(publicAddress))).isInstanceOf(HostVerdict.NotDeclared.class);
        assertThat(n.decide("a.example.org", List.of(publicAddress))).isInstanceOf(HostVerdict.Allowed.class);
        assertThat(n.decide("a.example.org", List.of(loopback))).isEqualTo(new HostVerdict.Internal(loopback, AddressClass.LOOPBACK));
        // One internal answer among public ones: refused, whoever controls the DNS picks the retry's.
        assertThat(n.decide("a.example.org", List.of(publicAddress, metadata)))
                .isEqualTo(new HostVerdict.Internal(metadata, AddressClass.LINK_LOCAL));
        assertThat(n.decide("local.example.org", List.of(loopback))).isInstanceOf(HostVerdict.Allowed.class);
        assertThat(n.decide("repo.example.com", List.of())).isInstanceOf(HostVerdict.Unresolved.class);
        HostVerdict.Allowed allowed = (HostVerdict.Allowed) n.decide("repo.example.com", List.of(publicAddress));
        assertThat(allowed.addresses()).containsExactly(publicAddress);
    }

    @Test
    void metadataTargetsGetNoHint() {
        assertThat(NetworkAdvice.classify("169.254.169.254", Optional.of(AddressClass.LINK_LOCAL)))
                .isInstanceOf(NetworkAdvice.AttackLike.class);
        assertThat(NetworkAdvice.classify("metadata.google.internal", Optional.empty())).isInstanceOf(NetworkAdvice.AttackLike.class);
        assertThat(NetworkAdvice.classify("a.example.org", Optional.of(AddressClass.LINK_LOCAL)))
                .isInstanceOf(NetworkAdvice.AttackLike.class);
        NetworkAdvice hint = NetworkAdvice.classify("Repo.Example.com", Optional.empty());
        assertThat(((NetworkAdvice.Hint) hint).yaml())
                .isEqualTo("sandbox:\n  network:\n    mode: proxy\n    allow: [\"repo.example.com\"]\n");
    }

    @Test
    void unixSocketsAreTheWorkspacesToDeclare() {
        DeclLayer ws = DeclLayer.workspace();
        Site site = Site.of(ws.label(), "sandbox.network");
        NetworkDecl allow = NetworkDecl.declare(Optional.empty(), List.of(), List.of(), List.of(), Optional.of(List.of("allow")),
                ws, site);
        assertThat(NetworkPolicy.merge(List.of(allow.layered("workspace"))).unix().allowsSocketCall())
                .isTrue();
        assertThat(NetworkPolicy.merge(List.of()).unix()).isEqualTo(UnixSockets.UNDECLARED);
        assertThat(NetworkPolicy.OPEN.unix().allowsSocketCall()).isFalse();
        SandboxException spell = refusal(() -> NetworkDecl.declare(Optional.empty(), List.of(), List.of(), List.of(),
                Optional.of(List.of("allow")), DeclLayer.spell("node"), Site.of("spell:node", "sandbox.network")));
        assertThat(spell.diagnostic().message()).contains("workspace's to declare");
    }
}
