package dev.magus.policy;

import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.decl.Site;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A host laid out in a temp directory: home, workspace, installation, cache and private temp. Never the real $HOME. */
final class FakeHost {
    final Path root;
    final Path home;
    final Path ws;
    final Path install;
    final Path temp;
    final Path cache;

    FakeHost(Path tmp) {
        try {
            root = Files.createDirectories(tmp).toRealPath();
            home = Files.createDirectories(root.resolve("home/u"));
            ws = Files.createDirectories(root.resolve("ws"));
            install = Files.createDirectories(root.resolve("opt/magus/lib"));
            temp = Files.createDirectories(root.resolve("run/magus-run-1"));
            cache = Files.createDirectories(home.resolve(".cache/magus"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    HostFacts facts(Map<String, String> env) {
        Map<String, String> all = new HashMap<>(Map.of("HOME", home.toString(), "PATH", "/usr/bin:/bin"));
        all.putAll(env);
        return HostFacts.linux(all, home, List.of(install), temp);
    }

    HostFacts facts() {
        return facts(Map.of());
    }

    static SandboxAllow allow(DeclLayer layer, String path, String mode) {
        return SandboxAllow.declare(Optional.empty(), Optional.empty(), Optional.empty(), Optional.of(path),
                Optional.of(mode), layer, Site.of(layer.label(), "sandbox.allow[0]"));
    }

    static Path mkdirs(Path p) {
        try {
            return Files.createDirectories(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path write(Path p, String text) {
        try {
            Files.createDirectories(p.getParent());
            return Files.writeString(p, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
