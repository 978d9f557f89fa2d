package dev.magus.workspace.spell;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The YAML spells parsed, by name and exact text, kept by their owner from one catalog to the
 * next: a server does not parse an unchanged spell per run. The file is read every run and
 * compared whole, so a change of any kind is seen, whatever its stamps; a text that does not
 * parse is never kept (the next run says why again). Bounded by {@value #MAX} spells
 * (cleared when full: only slower).
 */
public final class SpellParses {
    private static final int MAX = 256;

    private record Parsed(String text, Spell spell) {
    }

    private final Map<String, Parsed> parsed = new ConcurrentHashMap<>();

    /** {@link YamlSpell#read} of the text just read, from the last parse of that very text. */
    Spell parse(String name, String text, String source) {
        Parsed p = parsed.get(name);
        if (p != null && p.text().equals(text)) {
            return p.spell();
        }
        Spell spell = YamlSpell.read(name, text, source);
        if (parsed.size() >= MAX) {
            parsed.clear();
        }
        parsed.put(name, new Parsed(text, spell));
        return spell;
    }
}
