package dev.magus.workspace.spell;

import java.util.List;

/**
 * A Java spell provider, for programs embedding magus: listed in
 * {@code META-INF/services/dev.magus.workspace.spell.SpellProvider} and found with
 * {@link java.util.ServiceLoader}. Its spells are user spells: a built-in name cannot be
 * shadowed, and two providers (or a provider and a YAML spell) cannot give the same name.
 * Each spell's declaration is checked when it loads ({@link Spell}'s constructor and
 * {@link dev.magus.policy.decl.SandboxAllow} refuse what cannot be honored with MGS2004).
 */
public interface SpellProvider {
    /**
     * @param host the variables and home directory the grants derive from
     * @return the spells, each with its declaration at layer {@code spell:NAME}
     */
    List<Spell> spells(SpellHost host);
}
