package dev.magus.cli;

import dev.magus.workspace.config.Workspace;
import dev.magus.events.Echo;
import dev.magus.events.Mode;
import dev.magus.events.SandboxException;
import dev.magus.orchestrator.run.Host;
import dev.magus.policy.PolicyNote;
import dev.magus.workspace.trust.TrustStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code magus trust [--check]}: trusts this workspace's magus.yaml as it is now (and its
 * {@code .magus/spells}), so that its declarations that reach outside the workspace take effect
 * (MGS2016 until then). Says what the trust lets the file do before it pins it.
 */
@Command(name = "trust", description = "Trusts this workspace's magus.yaml as it is now, so its grants outside the workspace,"
        + " secret-looking passthrough and local hosts take effect (MGS2016 until then). A changed file needs trust again.")
final class TrustCommand implements Callable<Integer> {
    static final int NOT_TRUSTED = 1;

    @Option(names = "--check", description = "Only says whether the file is trusted as it is now: exit 0 trusted, 1 not.")
    boolean check;

    @Spec
    CommandSpec spec;

    private final CliContext context;

    TrustCommand() {
        this(CliContext.system());
    }

    TrustCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        Host host = context.host().get();
        Path cwd = context.cwd().get();
        Optional<Path> file = Workspace.findFile(cwd);
        if (file.isEmpty()) {
            err.println("magus: no magus.yaml here or above " + Echo.visible(cwd.toString()) + ": nothing to trust");
            err.flush();
            return NOT_TRUSTED;
        }
        TrustStore store = TrustStore.of(host.env(), host.home());
        String shown = Echo.visible(file.get().toString());
        if (check) {
            boolean trusted = store.trusts(file.get());
            err.println("magus: " + shown + (trusted ? " is trusted as it is now" : " is not trusted as it is now"));
            err.flush();
            return trusted ? 0 : NOT_TRUSTED;
        }
        List<PolicyNote> needs = needingTrust(host, cwd);
        try {
            store.trust(file.get());
        } catch (IOException e) {
            err.println("magus: cannot trust " + shown + ": " + e.getMessage());
            err.flush();
            return NOT_TRUSTED;
        }
        err.println("magus: trusted " + shown + " as it is now" + (needs.isEmpty() ? " (it declares nothing that needed trust)"
                : "; it may now:"));
        for (PolicyNote n : needs) {
            err.println("  " + Echo.visible(n.subject()) + "  " + n.why() + "  (" + Echo.visible(n.origin()) + ")");
        }
        err.flush();
        return 0;
    }

    /** What the file declares that waits for trust, as the policy of a run here would note it. */
    static List<PolicyNote> needingTrust(Host host, Path cwd) {
        try {
            return EffectivePolicy.of(host, cwd, Optional.of(Mode.BEST_EFFORT)).policy().policy()
                    .map(p -> p.notes().stream().filter(n -> n.kind() == PolicyNote.Kind.NEEDS_TRUST).toList())
                    .orElse(List.of());
        } catch (SandboxException cannotBuild) {
            // The file is trusted all the same; the run says what it cannot honour.
            return List.of();
        }
    }
}
