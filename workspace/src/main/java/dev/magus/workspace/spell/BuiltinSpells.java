package dev.magus.workspace.spell;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The spells magus ships: node, java, rust, go, python, mise, asdf, nvm, sdkman. Their names
 * cannot be shadowed by a user spell.
 */
public final class BuiltinSpells {
    private static final Map<String, Function<SpellHost, Spell>> ALL = Map.of(
            "node", Toolchains::node,
            "java", Toolchains::java,
            "rust", Toolchains::rust,
            "go", Toolchains::go,
            "python", Managers::python,
            "mise", Managers::mise,
            "asdf", Managers::asdf,
            "nvm", Managers::nvm,
            "sdkman", Managers::sdkman);

    /** In the order {@code magus policy} lists them. */
    public static final List<String> NAMES = List.of("node", "java", "rust", "go", "python", "mise", "asdf", "nvm", "sdkman");

    private BuiltinSpells() {
    }

    public static boolean isBuiltin(String name) {
        return ALL.containsKey(name);
    }

    /** The built-in spell {@code name} for {@code host}. */
    public static Optional<Spell> get(String name, SpellHost host) {
        return Optional.ofNullable(ALL.get(name)).map(f -> f.apply(host));
    }

    /** Every built-in spell for {@code host}, in {@link #NAMES} order. */
    public static List<Spell> all(SpellHost host) {
        return NAMES.stream().map(n -> ALL.get(n).apply(host)).toList();
    }
}
