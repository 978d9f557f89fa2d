package dev.magus.workspace.project;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which spells a process gets ("Which spells a process gets"):
 * <ul>
 *   <li>a target's own processes ({@code magus run -- CMD}, {@code magus target NAME}, a nested
 *       magus) get every spell the workspace's projects bind: a body shells out to toolchains
 *       its project binds no spell for, and a nested magus denied a grant could not pass it on;</li>
 *   <li>a spell op's child ({@code magus run --op SPELL -- CMD}) gets the spells of the project
 *       holding its working directory, plus the op's own spell: a project without the go spell
 *       never reaches the Go module cache.</li>
 * </ul>
 * The target layer reaches both; it is not a spell and is merged after them.
 */
public final class SpellChoice {
    private SpellChoice() {
    }

    /**
     * @param op       the spell op's spell, for a spell op's child
     * @param holding  the project holding the working directory, if any
     */
    public static List<String> spells(Projects projects, Optional<String> op, Optional<Project> holding) {
        if (op.isEmpty()) {
            return projects.boundSpells();
        }
        Set<String> out = new LinkedHashSet<>();
        holding.ifPresent(p -> out.addAll(p.spells()));
        out.add(op.get());
        return List.copyOf(out);
    }
}
