package dev.magus.landlock.abi;

import dev.magus.events.DetailKey;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.events.Mode;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the kernel layer does for a run, given the mode and the host's ABI. Pure: {@link
 * #decide} is a function of its two arguments.
 */
public sealed interface Decision {

    /** Where these diagnostics say they come from. */
    String SOURCE = "landlock";

    Mode mode();

    /**
     * Confine every child with a ruleset for {@code abi}. {@code warning} is MGS2005 when
     * best-effort runs on an ABI that leaves rights unenforced.
     */
    record Confine(Mode mode, int abi, List<String> unenforced, Optional<Diagnostic> warning) implements Decision {
        public Confine {
            Objects.requireNonNull(mode, "mode");
            unenforced = List.copyOf(unenforced);
            Objects.requireNonNull(warning, "warning");
            if (abi <= 0) {
                throw new IllegalArgumentException("cannot confine without Landlock (ABI " + abi + ")");
            }
        }
    }

    /**
     * Run children without a kernel domain: mode off (no warning), or best-effort on a host
     * without Landlock (MGS2005; the binding layer still checks).
     */
    record Unconfined(Mode mode, Optional<Diagnostic> warning) implements Decision {
        public Unconfined {
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(warning, "warning");
            if (mode == Mode.REQUIRED) {
                throw new IllegalArgumentException("required mode never runs a child unconfined");
            }
        }
    }

    /** Refuse the run: required mode below ABI 3 (MGS2012). */
    record Refuse(Mode mode, Diagnostic diagnostic) implements Decision {
        public Refuse {
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(diagnostic, "diagnostic");
        }

        public SandboxException exception() {
            return new SandboxException(diagnostic);
        }
    }

    static Decision decide(Mode mode, int abi) {
        return decide(mode, abi, Optional.empty());
    }

    /**
     * @param network what the run's network policy asks of the kernel, as MGS2005 names it
     *                ({@code TCP connect and bind (network mode proxy)}); empty under
     *                network mode {@code open}. Below ABI 4 best-effort names it among the
     *                unenforced rights, and required refuses (MGS2012): a run that declared
     *                its network closed never runs with it open while claiming otherwise.
     */
    static Decision decide(Mode mode, int abi, Optional<String> network) {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(network, "network");
        int known = Math.min(Math.max(abi, 0), AbiRights.NEWEST_KNOWN);
        switch (mode) {
            case OFF:
                return new Unconfined(mode, Optional.empty());
            case BEST_EFFORT: {
                List<String> gaps = AbiRights.unenforced(known, network);
                if (known == 0) {
                    return new Unconfined(mode, Optional.of(warning(known, gaps,
                            "filesystem confinement of child processes" + network.map(n -> " and " + n).orElse("")
                                    + " not enforced: ABI 0 (no Landlock on this host); binding checks only")));
                }
                Optional<Diagnostic> w = gaps.isEmpty() ? Optional.empty() : Optional.of(warning(known, gaps,
                        String.join(", ", gaps) + " not enforced: ABI " + known));
                return new Confine(mode, known, gaps, w);
            }
            case REQUIRED: {
                if (known < AbiRights.REQUIRED_MINIMUM) {
                    String host = known == 0 ? "this host has no Landlock" : "this host has Landlock ABI " + known;
                    return new Refuse(mode, Diagnostic.of(Code.MGS2012,
                                    "required mode needs Landlock ABI " + AbiRights.REQUIRED_MINIMUM
                                            + " (Linux 6.2) or newer; " + host
                                            + (known > 0 ? ", which cannot deny truncation" : ""),
                                    "sandbox.mode", Operation.NONE, Layer.KERNEL, SOURCE)
                            .withDetail(DetailKey.ABI, Integer.toString(known))
                            .withDetail(DetailKey.REQUIRED_ABI, Integer.toString(AbiRights.REQUIRED_MINIMUM)));
                }
                if (network.isPresent() && known < AbiRights.NETWORK_MINIMUM) {
                    return new Refuse(mode, Diagnostic.of(Code.MGS2012,
                                    "required mode with " + network.get() + " needs Landlock ABI " + AbiRights.NETWORK_MINIMUM
                                            + " (Linux 6.7) or newer; this host has Landlock ABI " + known
                                            + ", which cannot hold TCP connect and bind",
                                    "sandbox.network.mode", Operation.NONE, Layer.KERNEL, SOURCE)
                            .withDetail(DetailKey.ABI, Integer.toString(known))
                            .withDetail(DetailKey.REQUIRED_ABI, Integer.toString(AbiRights.NETWORK_MINIMUM)));
                }
                return new Confine(mode, known, AbiRights.unenforced(known, network), Optional.empty());
            }
            default:
                throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    private static Diagnostic warning(int abi, List<String> gaps, String message) {
        return Diagnostic.of(Code.MGS2005, message, "sandbox.mode", Operation.NONE, Layer.KERNEL, SOURCE)
                .withDetail(DetailKey.ABI, Integer.toString(abi))
                .withDetail(DetailKey.UNENFORCED, String.join(", ", gaps));
    }
}
