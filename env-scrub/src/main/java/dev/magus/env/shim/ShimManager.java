package dev.magus.env.shim;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A version manager as MGS2006 knows it: how its directory on PATH is recognised, and which
 * variables pick a tool version. Plain data, so any spell can name the manager it drives.
 *
 * @param name      the manager ({@code pyenv}, {@code mise})
 * @param markers   a PATH entry is the manager's when it ends with one of these ({@code /.pyenv/shims}),
 *                  or, for a marker ending in {@code /}, contains it ({@code /.nvm/versions/node/})
 * @param root      the variable naming the manager's own directory ({@code PYENV_ROOT}), when it has one
 * @param underRoot the shim dir relative to {@code root} ({@code shims}); ending in {@code /}: any entry below it
 * @param selectors the variables it reads, names or {@code PREFIX_*} patterns, most telling first:
 *                  the first exact name scrubbed is the diagnostic's subject
 * @param advice    the passthrough entries the hint proposes; empty: the scrubbed names themselves
 * @param spell     the spell that grants and passes what the manager needs, when one does
 */
public record ShimManager(String name, List<String> markers, Optional<String> root, String underRoot,
        List<String> selectors, List<String> advice, Optional<String> spell) {

    public static final ShimManager MISE = new ShimManager("mise", List.of("/mise/shims"), Optional.of("MISE_DATA_DIR"),
            "shims", List.of("MISE_DATA_DIR", "MISE_*"), List.of("\"MISE_*\""), Optional.of("mise"));
    public static final ShimManager ASDF = new ShimManager("asdf", List.of("/.asdf/shims"), Optional.of("ASDF_DATA_DIR"),
            "shims", List.of("ASDF_DIR", "ASDF_DATA_DIR"), List.of(), Optional.of("asdf"));
    public static final ShimManager PYENV = new ShimManager("pyenv", List.of("/.pyenv/shims"), Optional.of("PYENV_ROOT"),
            "shims", List.of("PYENV_VERSION", "PYENV_ROOT", "PYENV_DIR"), List.of(), Optional.of("python"));
    public static final ShimManager NVM = new ShimManager("nvm", List.of("/.nvm/versions/node/"), Optional.of("NVM_DIR"),
            "versions/node/", List.of("NVM_DIR", "NVM_BIN", "NVM_INC"), List.of(), Optional.of("nvm"));
    public static final ShimManager SDKMAN = new ShimManager("sdkman", List.of("/.sdkman/candidates/"), Optional.of("SDKMAN_DIR"),
            "candidates/", List.of("SDKMAN_DIR", "SDKMAN_CANDIDATES_DIR"), List.of(), Optional.of("sdkman"));

    /** The managers the built-in spells know, in the order their hints are given. */
    public static final List<ShimManager> KNOWN = List.of(MISE, ASDF, PYENV, NVM, SDKMAN);

    public ShimManager {
        Objects.requireNonNull(name, "name");
        markers = List.copyOf(markers);
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(underRoot, "underRoot");
        selectors = List.copyOf(selectors);
        advice = List.copyOf(advice);
        Objects.requireNonNull(spell, "spell");
        if (selectors.isEmpty()) {
            throw new IllegalArgumentException("a version manager reads at least one variable: " + name);
        }
    }

    /**
     * Whether the directory {@code dir} ({@code /}-separated, no trailing {@code /}) is the
     * manager's by its conventional marker: it ends with one, or lies beneath one that ends in
     * {@code /} ({@code ~/.nvm/versions/node/v20/bin}).
     */
    public boolean marks(String dir) {
        for (String marker : markers) {
            if (marker.endsWith("/") ? (dir + "/").contains(marker) && !(dir + "/").endsWith(marker) : dir.endsWith(marker)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code variable} is one the manager reads. */
    public boolean selects(String variable) {
        for (String s : selectors) {
            if (s.endsWith("*") ? variable.startsWith(s.substring(0, s.length() - 1)) : variable.equals(s)) {
                return true;
            }
        }
        return false;
    }
}
