package dev.magus.cli;

import dev.magus.events.Echo;
import dev.magus.policy.DenialAdvice;
import dev.magus.policy.decl.CommandLineDecl;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.fs.Access;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Secrets asked for on purpose: an {@code --allow} that reaches a credential store
 * ({@link DenialAdvice#credentialStores}) is granted as asked, and said once, in one line that
 * names the risk, before the run starts, on both paths (a local run prints it, a server writes
 * it on a forwarded run's stderr). Not a diagnostic: nothing was refused. {@code -q} leaves it
 * out, as every line that is neither a refusal nor a denial.
 */
final class CredentialGrants {
    /** How many of the stores a wide grant reaches the line names. */
    static final int SHOWN = 3;

    private CredentialGrants() {
    }

    /** One warning line per {@code --allow} of {@code allow} that reaches a credential store. */
    static List<String> warnings(List<String> allow, Path cwd, Path home) {
        List<String> lines = new ArrayList<>();
        List<SandboxAllow> entries = CommandLineDecl.parse(allow, List.of(), cwd).allow();
        for (int i = 0; i < entries.size(); i++) {
            SandboxAllow a = entries.get(i);
            List<String> stores = DenialAdvice.credentialStores(granted(a.path().orElseThrow(), home), home);
            if (!stores.isEmpty()) {
                lines.add("magus: warning: --allow " + Echo.visible(allow.get(i)) + " grants this run "
                        + (stores.size() == 1 ? "a credential store, " + stores.get(0) : "credential stores ("
                        + String.join(", ", stores.subList(0, Math.min(SHOWN, stores.size())))
                        + (stores.size() > SHOWN ? ", …" : "") + ")") + ": what it runs can read the secrets there"
                        + (a.mode().has(Access.WRITE) ? ", change them (add a key, a token)" : "")
                        + " and send them wherever the run reaches; grant the one file the tool needs, for a command you trust");
            }
        }
        return lines;
    }

    /**
     * The credential stores a command line grant reaches, which {@code magus policy} marks; none
     * for a rule of another layer (a spell's toolchain dir is granted for what it runs, not for
     * the credentials a tool keeps beside it).
     */
    static List<String> stores(dev.magus.policy.fs.Rule r, Path home) {
        return r.origin().equals(CLI_ORIGIN) ? DenialAdvice.credentialStores(r.path(), home) : List.of();
    }

    private static final String CLI_ORIGIN = dev.magus.policy.decl.DeclLayer.cli().label();

    /** The path an {@code --allow} grants, as {@link CommandLineDecl} leaves it ({@code ~} for home). */
    static Path granted(String path, Path home) {
        return path.equals("~") || path.startsWith("~/") ? home.resolve(path.substring(1).replaceFirst("^/+", ""))
                : Path.of(path);
    }
}
