package dev.magus.workspace.config;

import dev.magus.workspace.spell.SpellParses;

/**
 * What opening workspaces keeps from one run to the next, for as long as its owner lives (a
 * server, a program embedding magus, a test): each workspace's parsed {@code magus.yaml} while
 * the file is unchanged, and the YAML spells parsed while their text is. A fresh one reads and
 * parses everything again, as a new process would.
 */
public final class WorkspaceCaches {
    final ConfigCache config = new ConfigCache();
    final SpellParses spells = new SpellParses();
}
