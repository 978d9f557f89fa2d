package dev.magus.server;

import dev.magus.events.MagusEnv;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.workspace.config.WorkspaceConfig;
import dev.magus.workspace.config.ConfigCache;
import dev.magus.orchestrator.pipeline.ConfigStage;
import dev.magus.events.Mode;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The specification's rules for a forwarded run's mode ("Nested and forwarded runs only
 * strengthen"). The client's mode is the stronger of its {@code MAGUS_SANDBOX} floor and its
 * {@code --sandbox}; the server runs the work under the mode of the workspace it has open for
 * the directory. So:
 * <ul>
 *   <li>a {@code --sandbox} weaker than the floor or than the workspace's mode is MGS2010 (locally
 *       a person may turn a workspace's sandbox off with {@code --sandbox=off}; across the socket
 *       the server's workspace is the one that decides, and it is never weakened);</li>
 *   <li>a client mode stronger than the workspace's is declined: the server does not raise a
 *       workspace it serves for one client, and the client runs the work itself;</li>
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
     * @throws SandboxException MGS2010 for a weakening {@code --sandbox}; MGS2004 for a bad mode
     *         spelling or an unreadable {@code magus.yaml}
     */
    static Decision decide(Path cwd, Map<String, String> clientEnv, Optional<String> sandbox) {
        Optional<Mode> floor = Optional.ofNullable(clientEnv.get(MagusEnv.SANDBOX)).filter(v -> !v.isEmpty())
                .map(v -> Mode.parse(v, MagusEnv.SANDBOX));
        Optional<Mode> flag = sandbox.map(s -> Mode.parse(s, "--sandbox"));
        Mode workspace = ConfigStage.findWorkspace(cwd).map(f -> ConfigCache.parse(f.file(), f.stamp()).config()).orElse(WorkspaceConfig.DEFAULT).mode();
        // The floor rule first, worded as a local run's.
        Mode.effective(floor, flag, workspace);
        if (flag.isPresent() && !flag.get().atLeast(workspace)) {
            throw new SandboxException(Diagnostic.of(Code.MGS2010,
                    "--sandbox=" + flag.get().spelling() + " is weaker than sandbox.mode=" + workspace.spelling()
                            + " of the workspace the magus server runs this in; a forwarded run may only strengthen the"
                            + " sandbox (use --local to run it in this process, where --sandbox may choose freely)",
                    "sandbox.mode", Operation.NONE, Layer.POLICY, "--sandbox"));
        }
        Mode client = Mode.stronger(floor.orElse(Mode.OFF), flag.orElse(Mode.OFF));
        if (!workspace.atLeast(client)) {
            return new Decision.Decline(client, workspace);
        }
        return new Decision.Run(workspace);
    }
}
