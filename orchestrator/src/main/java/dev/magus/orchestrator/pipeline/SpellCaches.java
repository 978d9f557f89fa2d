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
            for (SandboxAllow a : spell.sandbox().allow()) {
                if (a.name().filter(spell.creates()::contains).isEmpty()) {
                    continue;
                }
                if (!(Locations.locate(a, host, config.workspaceRoot()) instanceof Location.At at)) {
                    continue;
                }
                Path dir = at.path().normalize();
                if (Locations.isHomeOrAncestor(dir, host.home()) || Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                try {
                    Files.createDirectories(dir);
                    made.add(dir);
                } catch (IOException | SecurityException e) {
                    // Left as it is: the policy skips it and says so.
                }
            }
        }
        return made;
    }
}
