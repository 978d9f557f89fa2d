package dev.magus.workspace.spell;

import dev.magus.env.Allowlist;
import dev.magus.env.shim.ShimManager;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.SandboxDecl;
import java.util.List;
import java.util.Optional;

/** A Java spell provider, as a program embedding magus would register one. */
public final class FixtureSpellProvider implements SpellProvider {
    @Override
    public List<Spell> spells(SpellHost host) {
        ShimManager rbenv = new ShimManager("rbenv", List.of("/.rbenv/shims"), Optional.of("RBENV_ROOT"), "shims",
                List.of("RBENV_VERSION"), List.of(), Optional.of("fixture"));
        SandboxDecl decl = new SandboxDecl(List.of(), Allowlist.parse(List.of("RBENV_VERSION"), "test"), DeclLayer.spell("fixture"));
        return List.of(new Spell("fixture", decl, List.of(rbenv), List.of("rubygems.org"), FixtureSpellProvider.class.getName()));
    }
}
