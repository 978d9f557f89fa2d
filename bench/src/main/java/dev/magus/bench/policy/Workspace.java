package dev.magus.bench.policy;

import dev.magus.bench.Fixtures;
import dev.magus.env.Allowlist;
import dev.magus.policy.HostFacts;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.policy.decl.Site;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A workspace on a fake host in a temp dir, with the declarations of a typical polyglot
 * repository: the workspace's own (a version manager), three spells (go, rust, node) and one
 * target. Every declared location exists, so every entry becomes a rule.
 */
public final class Workspace implements AutoCloseable {
    public final Path root;
    public final Path home;
    public final Path ws;
    public final HostFacts host;

    public Workspace() {
        root = Fixtures.tempRoot("magus-bench-ws-");
        home = Fixtures.dirs(root.resolve("home/u"));
        ws = Fixtures.dirs(root.resolve("ws"));
        // A git dir as git lays it out, so the build grants it as in an ordinary checkout.
        Fixtures.dirs(ws.resolve(".git/hooks"));
        Fixtures.dirs(ws.resolve(".git/objects"));
        Fixtures.dirs(ws.resolve(".git/refs/heads"));
        Fixtures.file(ws.resolve(".git/HEAD"), "ref: refs/heads/main\n");
        Path install = Fixtures.dirs(root.resolve("opt/magus/lib"));
        Path temp = Fixtures.dirs(root.resolve("run/magus-run-1"));
        Fixtures.dirs(home.resolve(".cache/magus"));
        for (String p : List.of(".local/share/mise", ".cache/go-build", "go/pkg/mod", ".cargo/registry",
                ".rustup/toolchains", ".cache/pnpm", ".local/share/pnpm", ".local/share/fixtures")) {
            Fixtures.dirs(home.resolve(p));
        }
        host = HostFacts.linux(Map.of("HOME", home.toString(), "PATH", "/usr/bin:/bin"), home, List.of(install), temp);
    }

    public SandboxDecl workspace() {
        return new SandboxDecl(List.of(
                allow(DeclLayer.workspace(), "mise-installs", "MISE_DATA_DIR", "xdgData", "mise", "rx")),
                Allowlist.parse(List.of("MISE_TRUSTED_CONFIG_PATHS", "MISE_SAFE"), "bench"), DeclLayer.workspace());
    }

    public List<SandboxDecl> spells() {
        DeclLayer go = DeclLayer.spell("go");
        DeclLayer rust = DeclLayer.spell("rust");
        DeclLayer node = DeclLayer.spell("node");
        return List.of(
                new SandboxDecl(List.of(
                        allow(go, "gocache", "GOCACHE", "userCache", "go-build", "rwx"),
                        allow(go, "gomodcache", "GOMODCACHE", "home", "go/pkg/mod", "rw")),
                        Allowlist.parse(List.of("GOFLAGS", "GOCACHE", "GOMODCACHE", "GOEXPERIMENT"), "bench"), go),
                new SandboxDecl(List.of(
                        allow(rust, "registry", "CARGO_HOME", "home", ".cargo/registry", "rw"),
                        allow(rust, "toolchains", "RUSTUP_HOME", "home", ".rustup/toolchains", "rx")),
                        Allowlist.parse(List.of("CARGO_HOME", "RUSTUP_HOME", "RUSTFLAGS"), "bench"), rust),
                new SandboxDecl(List.of(
                        allow(node, "store", "PNPM_STORE", "xdgCache", "pnpm", "rw"),
                        allow(node, "home", "PNPM_HOME", "xdgData", "pnpm", "rx")),
                        Allowlist.parse(List.of("NPM_CONFIG_*", "PNPM_HOME"), "bench"), node));
    }

    public Optional<SandboxDecl> target() {
        DeclLayer test = DeclLayer.target("test");
        return Optional.of(new SandboxDecl(List.of(
                allow(test, "fixtures", "FIXTURES_DIR", "xdgData", "fixtures", "rw")),
                Allowlist.parse(List.of("FIXTURES_DIR"), "bench"), test));
    }

    private static SandboxAllow allow(DeclLayer layer, String name, String env, String base, String path, String mode) {
        return SandboxAllow.declare(Optional.of(name), Optional.of(env), Optional.of(base), Optional.of(path),
                Optional.of(mode), layer, Site.of(layer.label(), "sandbox.allow[0]"));
    }

    @Override
    public void close() {
        Fixtures.delete(root);
    }
}
