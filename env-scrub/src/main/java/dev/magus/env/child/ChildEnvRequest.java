package dev.magus.env.child;

import dev.magus.events.Mode;
import dev.magus.env.overlay.Overlay;
import dev.magus.env.proc.ProcAccess;
import dev.magus.env.scrub.Scrubber;
import dev.magus.env.shim.ShimManager;
import java.util.List;
import java.util.Objects;

/** Everything one child environment is built from, apart from the host environment itself. */
public sealed interface ChildEnvRequest {

    Mode mode();

    Overlay overlay();

    ProcAccess procAccess();

    /**
     * Mode off: no policy, so nothing is scrubbed and no floor is written; the overlay lies
     * over the process environment and the proc-socket pointers are still decided.
     */
    record Off(Overlay overlay, ProcAccess procAccess) implements ChildEnvRequest {
        public Off {
            Objects.requireNonNull(overlay, "overlay");
            Objects.requireNonNull(procAccess, "procAccess");
        }

        @Override
        public Mode mode() {
            return Mode.OFF;
        }
    }

    /**
     * best-effort or required: scrub, private TMPDIR, overlay, floor, proc pointers.
     *
     * @param managers the version managers MGS2006 looks for: those the workspace's spells know
     */
    record Sandboxed(Mode mode, Scrubber scrubber, SandboxDirs dirs, Overlay overlay, ProcAccess procAccess,
            List<ShimManager> managers) implements ChildEnvRequest {
        /** With the managers the built-in spells know. */
        public Sandboxed(Mode mode, Scrubber scrubber, SandboxDirs dirs, Overlay overlay, ProcAccess procAccess) {
            this(mode, scrubber, dirs, overlay, procAccess, ShimManager.KNOWN);
        }

        public Sandboxed {
            managers = List.copyOf(managers);
            Objects.requireNonNull(mode, "mode");
            if (!mode.sandboxed()) {
                throw new IllegalArgumentException("a sandboxed request needs best-effort or required, not " + mode);
            }
            Objects.requireNonNull(scrubber, "scrubber");
            Objects.requireNonNull(dirs, "dirs");
            Objects.requireNonNull(overlay, "overlay");
            Objects.requireNonNull(procAccess, "procAccess");
        }
    }

    static ChildEnvRequest off(Overlay overlay, ProcAccess procAccess) {
        return new Off(overlay, procAccess);
    }

    static ChildEnvRequest sandboxed(Mode mode, Scrubber scrubber, SandboxDirs dirs, Overlay overlay,
                                     ProcAccess procAccess) {
        return new Sandboxed(mode, scrubber, dirs, overlay, procAccess);
    }

    /** {@link #of(Mode, Scrubber, SandboxDirs, Overlay, ProcAccess)} with the version managers MGS2006 looks for. */
    static ChildEnvRequest of(Mode mode, Scrubber scrubber, SandboxDirs dirs, Overlay overlay, ProcAccess procAccess,
                              List<ShimManager> managers) {
        return mode.sandboxed() ? new Sandboxed(mode, scrubber, dirs, overlay, procAccess, managers) : off(overlay, procAccess);
    }

    /** Picks {@link Off} for mode off (ignoring {@code scrubber} and {@code dirs}), else {@link Sandboxed}. */
    static ChildEnvRequest of(Mode mode, Scrubber scrubber, SandboxDirs dirs, Overlay overlay,
                              ProcAccess procAccess) {
        return mode.sandboxed() ? sandboxed(mode, scrubber, dirs, overlay, procAccess) : off(overlay, procAccess);
    }
}
