package dev.magus.orchestrator.pipeline;

import dev.magus.policy.HostFacts;
import dev.magus.policy.Location;
import dev.magus.policy.Locations;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.workspace.spell.Spell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Before a sandboxed run, the caches its spells name that do not exist yet are made, as the
 * tool would make them on its first run: Landlock grants only what exists, so a fresh home
 * would otherwise refuse npm its {@code ~/.npm} and cargo its registry. Only a spell's own
 * {@link Spell#creates() cache entries} are made, never home or above, never through a dangling
 * link; one that cannot be made stays skipped, as {@code magus policy} then says.
 */
public final class SpellCaches {
    private SpellCaches() {
    }

    /** @return the directories made */
    public static List<Path> prepare(RunConfig config, HostFacts host) {
        List<Path> made = new ArrayList<>();
        for (String name : config.spellNames()) {
            Spell spell = config.spells().spell(name);
            List<Path> projects = projectDirs(config, name);
            for (SandboxAllow a : spell.sandbox().allow()) {
                if (a.name().filter(n -> spell.createsFor(n, marker -> projects.stream()
                        .anyMatch(d -> Files.exists(d.resolve(marker), LinkOption.NOFOLLOW_LINKS)))).isEmpty()) {
                    continue;
                }
                if (!(Locations.locate(a, host, config.workspaceRoot()) instanceof Location.At at)) {
                    continue;
                }
                create(at.path(), host.home(), host.magusPrivateDirs()).ifPresent(made::add);
            }
        }
        return made;
    }

    /**
     * The directories whose marker files say which of a spell's tools the run's project uses:
     * the project holding the working directory, else every project binding the spell, else
     * the workspace root.
     */
    private static List<Path> projectDirs(RunConfig config, String spell) {
        Path root = config.workspaceRoot();
        if (config.project().isPresent()) {
            return List.of(root.resolve(config.project().get().dir()).normalize());
        }
        List<Path> binding = config.projects().all().stream().filter(p -> p.spells().contains(spell))
                .map(p -> root.resolve(p.dir()).normalize()).toList();
        return binding.isEmpty() ? List.of(root) : binding;
    }

    /**
     * Makes {@code dir} and its missing parents, only when that is safe: the deepest existing
     * ancestor is resolved to its real path first and must be reached through no symbolic link
     * below home (home's own spelling may be one), and the real target must be neither home nor
     * above it, nor inside a credential store or one of magus's private dirs. Each missing
     * component is made with {@code mkdir} (never through a link: one planted meanwhile fails it).
     *
     * @return the real directory made; empty when it existed or was refused
     */
    public static java.util.Optional<Path> create(Path dir, Path home, List<Path> privateDirs) {
        Path want = dir.normalize();
        if (!want.isAbsolute() || Files.exists(want, LinkOption.NOFOLLOW_LINKS)) {
            return java.util.Optional.empty();
        }
        Path existing = want.getParent();
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return java.util.Optional.empty();
        }
        try {
            Path real = existing.toRealPath();
            Path realHome = home.toRealPath();
            Path spelled = existing.startsWith(home) ? realHome.resolve(home.relativize(existing)) : existing;
            if (!real.equals(spelled) || !Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) {
                return java.util.Optional.empty();
            }
            Path target = real.resolve(existing.relativize(want));
            if (Locations.isHomeOrAncestor(target, realHome) || Locations.isHomeOrAncestor(target, home)) {
                return java.util.Optional.empty();
            }
            for (String store : dev.magus.policy.DenialAdvice.CREDENTIAL_STORES) {
                if (target.startsWith(realHome.resolve(store)) || target.startsWith(home.resolve(store))) {
                    return java.util.Optional.empty();
                }
            }
            for (Path own : privateDirs) {
                Path o = own.normalize();
                Path ownReal = realOrSelf(o);
                if (target.startsWith(o) || o.startsWith(target) || target.startsWith(ownReal) || ownReal.startsWith(target)) {
                    return java.util.Optional.empty();
                }
            }
            Path cur = real;
            for (Path name : existing.relativize(want)) {
                cur = cur.resolve(name);
                Files.createDirectory(cur);
            }
            return java.util.Optional.of(target);
        } catch (IOException | SecurityException | IllegalArgumentException e) {
            // Left as it is: the policy skips it and says so.
            return java.util.Optional.empty();
        }
    }

    private static Path realOrSelf(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p;
        }
    }
}
