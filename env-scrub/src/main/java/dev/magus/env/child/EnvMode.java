package dev.magus.env.child;

/**
 * The effective sandbox mode as this module needs it. It mirrors policy-engine's {@code Mode}
 * spelling for spelling because env-scrub sits below policy-engine and cannot depend on it;
 * map with {@code EnvMode.fromSpelling(mode.spelling())}.
 */
public enum EnvMode {
    OFF("off"), BEST_EFFORT("best-effort"), REQUIRED("required");

    private final String spelling;

    EnvMode(String spelling) {
        this.spelling = spelling;
    }

    /** The value children receive in {@code MAGUS_SANDBOX}. */
    public String spelling() {
        return spelling;
    }

    /** Whether a policy exists, and so a scrub and a floor. */
    public boolean sandboxed() {
        return this != OFF;
    }

    /**
     * The mode of this spelling. Validating what users wrote is policy-engine's job (MGS2004
     * there); here an unknown spelling is a programming error.
     */
    public static EnvMode fromSpelling(String spelling) {
        for (EnvMode m : values()) {
            if (m.spelling.equals(spelling)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown sandbox mode spelling '" + spelling + "'");
    }
}
