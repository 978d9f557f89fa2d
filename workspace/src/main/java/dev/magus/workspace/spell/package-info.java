/**
 * Spells: the sandbox declaration of one toolchain, in the workspace section's shape ("Declaring
 * what a tool needs"). {@link dev.magus.workspace.spell.Spell} is the value; the built-ins
 * ({@link dev.magus.workspace.spell.BuiltinSpells}), YAML spells ({@code .magus/spells/NAME.yaml})
 * and Java providers ({@link dev.magus.workspace.spell.SpellProvider}, found with
 * {@link java.util.ServiceLoader}) are loaded into one {@link dev.magus.workspace.spell.SpellCatalog}.
 */
package dev.magus.workspace.spell;
