package dev.magus.policy.trust;

import dev.magus.policy.HostFacts;
import dev.magus.policy.Location;
import dev.magus.policy.Locations;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.policy.net.HostPattern;
import dev.magus.policy.decl.NetworkDecl;
import dev.magus.policy.net.UnixSockets;
import dev.magus.env.Allowlist;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What a repository's own declaration may not do until the user trusts it: a {@code magus.yaml}
 * is the repository's, and a cloned repository is not the user. A grant that reaches outside
 * the workspace, a passed variable that looks like a secret, and a host in loopback,
 * link-local or private ranges (or extra loopback ports), and Unix sockets each take effect only once the file
 * is trusted ({@code magus trust}, as {@code direnv allow}). Everything else, everything inside
 * the workspace, runs untrusted. Pure: the judgement of one layer on one host.
 */
public final class Untrusted {

    /**
     * Names that hold secrets by convention: any variable whose name has one of these words,
     * and the prefixes of the clouds' and forges' credential variables.
     */
    private static final Pattern SECRET_WORD = Pattern.compile(
            "(^|_)(TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PWD_HASH|KEY|KEYS|APIKEY|CREDENTIAL|CREDENTIALS|CREDS"
                    + "|AUTH|COOKIE|SESSION|PRIVATE|CERT|PAT|OAUTH|SIGNING|WEBHOOK|DSN)(_|$)");
    private static final List<String> SECRET_PREFIXES = List.of("AWS_", "GITHUB_", "GH_", "GITLAB_", "GL_", "GCP_",
            "GOOGLE_", "GCLOUD_", "AZURE_", "ARM_", "DOCKER_", "NPM_", "NODE_AUTH", "PYPI_", "TWINE_", "CARGO_REGISTRY",
            "HF_", "HUGGING", "OPENAI_", "ANTHROPIC_", "SLACK_", "STRIPE_", "VAULT_", "TF_VAR_", "SSH_", "GPG_", "GNUPG",
            "KUBE", "DIGITALOCEAN_", "HEROKU_", "NETLIFY_", "VERCEL_", "CLOUDFLARE_", "SENTRY_", "DATABASE_URL");

    private Untrusted() {
    }

    /**
     * One declaration refused until the file is trusted.
     *
     * @param subject what was declared, as written or resolved ({@code ~/.ssh}, {@code GITHUB_TOKEN})
     * @param source  where: the layer's file position and key
     * @param why     what makes it need trust
     */
    public record Refusal(String subject, String source, String why) {
        public Refusal {
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(why, "why");
        }
    }

    /** A layer judged: what runs untrusted, and what waits for trust. */
    public record Judged(SandboxDecl kept, List<Refusal> refused) {
        public Judged {
            Objects.requireNonNull(kept, "kept");
            refused = List.copyOf(refused);
        }
    }

    /** {@code decl}, one layer of a workspace's file, judged as untrusted on {@code host}. */
    public static Judged judge(SandboxDecl decl, HostFacts host, Path workspaceRoot) {
        List<Refusal> refused = new ArrayList<>();
        List<SandboxAllow> allow = new ArrayList<>();
        Path home = host.home();
        for (SandboxAllow a : decl.allow()) {
            Location l = Locations.locate(a, host, workspaceRoot);
            if (l instanceof Location.At at && !inside(at.path(), workspaceRoot)) {
                refused.add(new Refusal(Locations.display(at.path(), home), a.site().source(),
                        "a grant outside the workspace (" + a.mode() + ")"));
            } else {
                allow.add(a);
            }
        }
        Allowlist pass = decl.passthrough();
        Set<String> names = new TreeSet<>();
        Set<String> prefixes = new TreeSet<>();
        String passSource = decl.layer().label() + " sandbox.env.passthrough";
        for (String n : pass.names()) {
            if (secretLooking(n)) {
                refused.add(new Refusal(n, passSource, "a variable that looks like a secret"));
            } else {
                names.add(n);
            }
        }
        for (String p : pass.prefixes()) {
            if (secretLooking(p) || SECRET_PREFIXES.stream().anyMatch(s -> s.startsWith(p) || p.startsWith(s))) {
                refused.add(new Refusal(p + "*", passSource, "a pattern that passes variables that look like secrets"));
            } else {
                prefixes.add(p);
            }
        }
        NetworkDecl n = decl.network();
        String netSource = decl.layer().label() + " sandbox.network";
        List<HostPattern> hosts = new ArrayList<>();
        for (HostPattern h : n.allow()) {
            String why = LocalHosts.why(h.text());
            if (why != null) {
                refused.add(new Refusal(h.text(), netSource + ".allow", why));
            } else {
                hosts.add(h);
            }
        }
        for (int port : n.ports()) {
            refused.add(new Refusal("localhost:" + port, netSource + ".ports", "a port on this machine's loopback"));
        }
        Optional<UnixSockets> unix = n.unix();
        if (unix.isPresent() && unix.get().allowsSocketCall()) {
            // Below Landlock ABI 9 a declared socket opens every one the child can name: the
            // user's ssh-agent, docker.sock and session bus among them.
            refused.add(new Refusal("unix: " + unix.get().describe(), netSource + ".unix",
                    "Unix sockets, which reach the services of this machine (ssh-agent, docker, the session bus)"));
            unix = Optional.empty();
        }
        if (refused.isEmpty()) {
            return new Judged(decl, List.of());
        }
        SandboxDecl kept = new SandboxDecl(allow, new Allowlist(names, prefixes),
                new NetworkDecl(n.mode(), hosts, new TreeSet<>(), n.bind(), unix), decl.layer());
        return new Judged(kept, refused);
    }

    private static boolean inside(Path p, Path root) {
        return p.normalize().startsWith(root);
    }

    /** Whether a variable name (or a prefix) looks like it holds a secret. */
    public static boolean secretLooking(String name) {
        String n = name.toUpperCase(Locale.ROOT);
        if (SECRET_WORD.matcher(n).find()) {
            return true;
        }
        for (String p : SECRET_PREFIXES) {
            if (n.startsWith(p)) {
                return true;
            }
        }
        return false;
    }
}
