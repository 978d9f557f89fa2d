package dev.magus.policy.decl;

import java.util.Optional;

/**
 * A directory a declared {@code path} is written under (a base for a declared
 * location). The table is data here; the policy builder applies it to a host.
 *
 * <pre>
 * base        Linux                                   macOS
 * xdgData     $XDG_DATA_HOME, else ~/.local/share     same rule
 * xdgCache    $XDG_CACHE_HOME, else ~/.cache          same rule
 * xdgConfig   $XDG_CONFIG_HOME, else ~/.config        same rule
 * xdgState    $XDG_STATE_HOME, else ~/.local/state    same rule
 * userCache   as xdgCache                             ~/Library/Caches
 * userConfig  as xdgConfig                            ~/Library/Application Support
 * home        ~                                       ~
 * workspace   the workspace root                      same
 * </pre>
 */
public enum Base {
    XDG_DATA("xdgData", "XDG_DATA_HOME", ".local/share", Optional.empty()),
    XDG_CACHE("xdgCache", "XDG_CACHE_HOME", ".cache", Optional.empty()),
    XDG_CONFIG("xdgConfig", "XDG_CONFIG_HOME", ".config", Optional.empty()),
    XDG_STATE("xdgState", "XDG_STATE_HOME", ".local/state", Optional.empty()),
    USER_CACHE("userCache", "XDG_CACHE_HOME", ".cache", Optional.of("Library/Caches")),
    USER_CONFIG("userConfig", "XDG_CONFIG_HOME", ".config", Optional.of("Library/Application Support")),
    HOME("home", "", "", Optional.empty()),
    WORKSPACE("workspace", "", "", Optional.empty());

    private final String spelling;
    private final String variable;
    private final String homeDefault;
    private final Optional<String> macosHomeRelative;

    Base(String spelling, String variable, String homeDefault, Optional<String> macosHomeRelative) {
        this.spelling = spelling;
        this.variable = variable;
        this.homeDefault = homeDefault;
        this.macosHomeRelative = macosHomeRelative;
    }

    /** As written in a declaration: {@code xdgCache}, {@code userCache}, ... */
    public String spelling() {
        return spelling;
    }

    /**
     * The variable that overrides the default, when the base has one on this platform. On macOS
     * {@code userCache} and {@code userConfig} are fixed directories, as Go's
     * {@code os.UserCacheDir} has them, and read no variable.
     */
    public Optional<String> variable(boolean macos) {
        if (variable.isEmpty() || (macos && macosHomeRelative.isPresent())) {
            return Optional.empty();
        }
        return Optional.of(variable);
    }

    /** The default, relative to the home directory ({@code ""} is home itself); empty for {@code workspace}. */
    public Optional<String> homeRelativeDefault(boolean macos) {
        if (this == WORKSPACE) {
            return Optional.empty();
        }
        return Optional.of(macos ? macosHomeRelative.orElse(homeDefault) : homeDefault);
    }

    /** Exact spelling only; empty for anything else. */
    public static Optional<Base> parse(String text) {
        for (Base b : values()) {
            if (b.spelling.equals(text)) {
                return Optional.of(b);
            }
        }
        return Optional.empty();
    }

    /** The spellings, for "expected one of" messages. */
    public static String spellings() {
        StringBuilder sb = new StringBuilder();
        for (Base b : values()) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(b.spelling);
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return spelling;
    }
}
