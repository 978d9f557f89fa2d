package dev.magus.server;

import dev.magus.workspace.config.Workspace;
import dev.magus.workspace.config.WorkspaceCaches;
import dev.magus.events.MagusEnv;
import dev.magus.events.SandboxException;
import dev.magus.events.Mode;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * A forwarded run's mode, as the same run's with {@code --local} (the server is an accelerator,
 * never a different authority): the stronger of the client's floor ({@code MAGUS_SANDBOX}) and what it asks
 * for, which is its {@code --sandbox} when given and else the workspace's mode. So:
 * <ul>
 *   <li>a {@code --sandbox} weaker than the floor is MGS2010, worded as a local run's;</li>
 *   <li>a top-level client's {@code --sandbox} below the workspace's mode goes, as locally (a
 *       nested run is declined by its token, and its floor is its parent's mode);</li>
 *   <li>a client mode stronger than the workspace's is declined: the client runs it itself;</li>
 *   <li>otherwise the run goes under the workspace's mode.</li>
 * </ul>
 */
final class ModeRules {
    private ModeRules() {
    }

    /** What becomes of one forwarded run. */
    sealed interface Decision {
        /** Run it under {@code mode}. */
        record Run(Mode mode) implements Decision {
        }

        /** The server's workspace does not meet the client's mode. */
        record Decline(Mode client, Mode workspace) implements Decision {
        }
    }

    /**
     * Reads the workspace's {@code magus.yaml} (blocking: never on an event loop).
     *
     * @throws SandboxException MGS2010 for a {@code --sandbox} below the floor; MGS2004 for a bad mode
     *         spelling or an unreadable {@code magus.yaml}
     */
    static Decision decide(Path cwd, Map<String, String> clientEnv, Optional<String> sandbox, WorkspaceCaches caches) {
        Optional<Mode> floor = Optional.ofNullable(clientEnv.get(MagusEnv.SANDBOX)).filter(v -> !v.isEmpty())
                .map(v -> Mode.parse(v, MagusEnv.SANDBOX));
        Optional<Mode> flag = sandbox.map(s -> Mode.parse(s, "--sandbox"));
        Mode workspace = Workspace.configAt(cwd, caches).mode();
        // The floor rule first, worded as a local run's.
        Mode local = Mode.effective(floor, flag, workspace);
        Mode client = Mode.stronger(floor.orElse(Mode.OFF), flag.orElse(Mode.OFF));
        if (!workspace.atLeast(client)) {
            return new Decision.Decline(client, workspace);
        }
        return new Decision.Run(local);
    }
}
