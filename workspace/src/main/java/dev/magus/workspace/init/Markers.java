package dev.magus.workspace.init;

import java.util.List;
import java.util.Optional;

/**
 * Which spell a marker file asks for. The spells, in the order {@code magus init} lists them:
 * the toolchains first, then the version managers.
 */
public final class Markers {
    /** Every spell a marker can name, in the order they are written. */
    public static final List<String> SPELLS = List.of("node", "java", "rust", "go", "python", "mise", "asdf", "nvm",
            "sdkman");

    private Markers() {
    }

    /** The spell the file {@code name} is the marker of, if any. */
    public static Optional<String> spell(String name) {
        String spell = switch (name) {
            case "package.json" -> "node";
            case "pom.xml" -> "java";
            case "Cargo.toml" -> "rust";
            case "go.mod" -> "go";
            case "pyproject.toml" -> "python";
            case ".tool-versions" -> "asdf";
            case "mise.toml", ".mise.toml" -> "mise";
            case ".nvmrc" -> "nvm";
            case ".sdkmanrc" -> "sdkman";
            default -> null;
        };
        if (spell == null && name.startsWith("build.gradle")) {
            spell = "java";
        }
        if (spell == null && name.startsWith("requirements") && name.endsWith(".txt")) {
            spell = "python";
        }
        return Optional.ofNullable(spell);
    }
}
