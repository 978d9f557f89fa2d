package dev.magus.orchestrator.run;

import java.util.List;

/**
 * A run's one-run grants from the command line, as written: {@code --allow PATH[:ro|rw|rx|rwx]}
 * and {@code --pass VAR}. The policy stage parses them
 * ({@link dev.magus.policy.decl.CommandLineDecl}) into the {@code cli} layer, relative paths
 * against the run's working directory; a malformed one refuses the run (MGS2004), under every
 * mode.
 */
public record Grants(List<String> allow, List<String> pass) {
    public static final Grants NONE = new Grants(List.of(), List.of());

    public Grants {
        allow = List.copyOf(allow);
        pass = List.copyOf(pass);
    }

    public boolean isEmpty() {
        return allow.isEmpty() && pass.isEmpty();
    }
}
