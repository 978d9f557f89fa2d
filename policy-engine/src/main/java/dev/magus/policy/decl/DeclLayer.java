package dev.magus.policy.decl;

import java.util.Objects;

/**
 * The layer a declaration comes from. The core footprint is implicit and has no declaration;
 * these are the layers that declare, in merge order: workspace, spells, target, and the one-run
 * grants of the command line ({@code magus run --allow/--pass}).
 */
public sealed interface DeclLayer permits DeclLayer.Workspace, DeclLayer.Spell, DeclLayer.Target, DeclLayer.Cli {

    /** {@code workspace}, {@code spell:go}, {@code target:test}: how diagnostics and {@code magus policy} name the layer. */
    String label();

    /**
     * Only magus.yaml may write {@code $VAR} into a path: a spell or a target names variables
     * through {@code env} and {@code base}, so a variable unset on one host leaves the tool at
     * its default rather than failing every run there.
     */
    default boolean expandsVariables() {
        return this instanceof Workspace;
    }

    static DeclLayer workspace() {
        return Workspace.INSTANCE;
    }

    static DeclLayer spell(String name) {
        return new Spell(name);
    }

    static DeclLayer target(String name) {
        return new Target(name);
    }

    static DeclLayer cli() {
        return Cli.INSTANCE;
    }

    /** The {@code sandbox} section of magus.yaml. */
    record Workspace() implements DeclLayer {
        static final Workspace INSTANCE = new Workspace();

        @Override
        public String label() {
            return "workspace";
        }
    }

    /** A spell's {@code mgs_getSandbox()}. */
    record Spell(String name) implements DeclLayer {
        public Spell {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public String label() {
            return "spell:" + name;
        }
    }

    /** The {@code sandbox} key of a target's policy. */
    record Target(String name) implements DeclLayer {
        public Target {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public String label() {
            return "target:" + name;
        }
    }

    /** {@code magus run --allow PATH[:MODE] --pass VAR}: grants for one run, merged last. */
    record Cli() implements DeclLayer {
        static final Cli INSTANCE = new Cli();

        @Override
        public String label() {
            return "cli";
        }
    }
}
