package dev.magus.events;

import java.util.Optional;

/** {@code sandbox.mode}, ordered from weakest to strongest. */
public enum Mode {
    OFF("off"), BEST_EFFORT("best-effort"), REQUIRED("required");

    private final String spelling;

    Mode(String spelling) {
        this.spelling = spelling;
    }

    /** The spelling users write and children receive in {@code MAGUS_SANDBOX}. */
    public String spelling() {
        return spelling;
    }

    /** Whether a policy exists, and so a scrub and a floor: every mode but off. */
    public boolean sandboxed() {
        return this != OFF;
    }

    public boolean atLeast(Mode other) {
        return compareTo(other) >= 0;
    }

    public static Mode stronger(Mode a, Mode b) {
        return a.atLeast(b) ? a : b;
    }

    /**
     * Parses one of the three spellings exactly; anything else is MGS2004 naming where the
     * value came from ({@code --sandbox}, {@code MAGUS_SANDBOX}, {@code magus.yaml:3:9}).
     */
    public static Mode parse(String value, String source) {
        for (Mode m : values()) {
            if (m.spelling.equals(value)) {
                return m;
            }
        }
        throw new SandboxException(Diagnostic.of(Code.MGS2004,
                "unknown sandbox mode " + Echo.quoted(value) + " (expected off, best-effort or required)",
                "sandbox.mode", Operation.NONE, Layer.POLICY, source));
    }

    /**
     * The effective mode of a run (docs/architecture.md, a run: config): the stronger of the floor and the
     * request, where the request is the flag when given and else the workspace's mode. A flag
     * weaker than the floor is refused with MGS2010; a workspace mode weaker than the floor
     * simply runs at the floor.
     *
     * @param floor     {@code MAGUS_SANDBOX} of the parent run, when set
     * @param flag      {@code --sandbox}, when given
     * @param workspace the workspace's {@code sandbox.mode} (off when none)
     */
    public static Mode effective(Optional<Mode> floor, Optional<Mode> flag, Mode workspace) {
        if (flag.isPresent() && floor.isPresent() && !flag.get().atLeast(floor.get())) {
            throw new SandboxException(Diagnostic.of(Code.MGS2010,
                    "--sandbox=" + flag.get().spelling + " is weaker than MAGUS_SANDBOX=" + floor.get().spelling
                            + ", the floor set by the run this one belongs to; a nested run may only strengthen"
                            + " the sandbox (unset MAGUS_SANDBOX at the top level to choose freely)",
                    MagusEnv.SANDBOX, Operation.NONE, Layer.POLICY, "--sandbox"));
        }
        Mode requested = flag.orElse(workspace);
        return floor.map(f -> stronger(f, requested)).orElse(requested);
    }
}
