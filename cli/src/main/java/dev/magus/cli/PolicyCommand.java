package dev.magus.cli;

import dev.magus.events.MagusEnv;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.magus.env.MagusVariables;
import dev.magus.env.platform.Platform;
import dev.magus.events.Echo;
import dev.magus.events.SandboxException;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.pipeline.ConfigStage;
import dev.magus.orchestrator.pipeline.EnvStage;
import dev.magus.policy.Locations;
import dev.magus.policy.Policy;
import dev.magus.policy.PolicyNote;
import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.fs.Rule;
import dev.magus.events.Mode;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code magus policy [--json] [--sandbox=MODE] [--allow PATH[:MODE]] [--pass VAR] [--op SPELL] [--target NAME]}: the policy a {@code magus run} started here
 * would get, built by the run pipeline's own stages.
 *
 * <p>{@code --json} prints one object (field names are stable; paths are absolute, never
 * {@code ~}):
 *
 * <pre>
 * {
 *   "mode": "off" | "best-effort" | "required",
 *   "mode_source": "flag" | "MAGUS_SANDBOX" | "magus.yaml" | "default",
 *   "workspace_root": "/abs/ws",
 *   "workspace_file": "/abs/ws/magus.yaml",            (absent without a magus.yaml)
 *   "spells": ["node", "go"],                          (the spells the process gets)
 *   "target": "api/test", "target_writes": false,      (with --target only)
 *   "policy": true | false,                            (false: mode off, every check passes)
 *   "rules": [ {"path": "/usr", "bits": "r-x", "origin": "core:/usr"},
 *              {"path": "/home/u/.npm", "bits": "rw-", "origin": "spell:node/npm-cache"}, ... ],
 *   "notes": [ {"kind": "skipped" | "grants nothing" | "needs 'magus trust'", "origin": "workspace:gocache",
 *               "subject": "sandbox.allow[0]", "why": "$GOCACHE=off is not an absolute path"}, ... ],
 *   "env": {"baseline": ["HOME", "LC_*", ...], "passthrough": ["MISE_*", ...],
 *           "set_by_magus": ["TMPDIR", "MAGUS_SANDBOX", ...]},
 *   "control_files": [".git", ".git/hooks/", ...],
 *   "leases": [ {"job": "2", "checkout": "/abs/ws", "carried": false, "write_paths": ["src/**"],
 *                "globs": [{"glob": "src/**", "kernel": "exact" | "wider" | "narrower",
 *                           "rules": ["/abs/ws/src"], "why": "..."}],
 *                "narrowed": [{"path": "/abs/ws", "origin": "core:workspace",
 *                              "bits_before": "rwx", "bits_after": "r-x"}]}, ... ],
 *   "network": {"mode": "proxy", "allow": [{"host": "*.example.org", "origins": ["workspace"]}],
 *               "ports": [{"port": 5432, "origins": ["workspace"]}], "bind": [...]},
 *   "landlock": {"abi": 7, "kernel_layer": "confine" | "unconfined" | "refuse",
 *                "summary": "...", "unenforced": ["truncate", ...], "diagnostic": "MGS2012 ..."}
 * }
 * </pre>
 *
 * {@code rules}, {@code notes}, {@code env}, {@code control_files}, {@code leases} (empty when no
 * lease narrows the run; the rules are already the narrowed ones) and {@code network} are present only when
 * {@code policy} is true. The private temp dir's rule has the path
 * {@code <temp base>/magus-run-*}: each run gets a fresh one. {@code landlock.diagnostic} is
 * present only when the decision carries one (MGS2005, MGS2012).
 *
 * <p>A magus.yaml that cannot be honored prints its MGS2004 line on stderr and exits 125.
 */
@Command(name = "policy", description = "Prints the effective sandbox policy of the workspace at the current directory.")
final class PolicyCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "Prints the policy as one JSON object (schema in the class documentation).")
    boolean json;

    @Option(names = "--sandbox", paramLabel = "MODE", description = "The mode to show the policy for: off, best-effort or required.")
    Optional<String> sandbox;

    @Option(names = "--op", paramLabel = "SPELL", description = "The policy of a spell op's child (magus run --op SPELL).")
    Optional<String> op = Optional.empty();

    @Option(names = "--target", paramLabel = "NAME", description = "The policy of the target NAME (magus target NAME).")
    Optional<String> target = Optional.empty();

    @Option(names = "--allow", paramLabel = "PATH[:MODE]", description = "Shows the policy of a run given this --allow.")
    List<String> allow = new ArrayList<>();

    @Option(names = "--pass", paramLabel = "VAR", description = "Shows the policy of a run given this --pass.")
    List<String> pass = new ArrayList<>();

    /** What every sandboxed child gets from magus itself rather than from the caller's environment. */
    static final List<String> SET_BY_MAGUS = List.of(MagusVariables.TMPDIR, MagusEnv.SANDBOX, MagusEnv.CACHE_DIR,
            MagusEnv.STATE_DIR, MagusEnv.LEASE, MagusEnv.RUN_ID, EnvStage.GIT_CONFIG_GLOBAL);

    private final CliContext context;

    PolicyCommand() {
        this(CliContext.system());
    }

    PolicyCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Host host = context.host().get();
        EffectivePolicy effective;
        try {
            Optional<Mode> flag = sandbox.map(s -> Mode.parse(s, "--sandbox"));
            effective = EffectivePolicy.of(host, context.cwd().get(), flag, new dev.magus.orchestrator.run.Grants(allow, pass),
                    op == null ? Optional.empty() : op, target == null ? Optional.empty() : target);
        } catch (SandboxException e) {
            err.println(HumanLines.line(e.diagnostic()));
            err.flush();
            return ExitCodes.REFUSED;
        }
        int abi = context.probe().abi();
        KernelLayer kernel = KernelLayer.of(effective.config().mode(), abi);
        if (json) {
            out.println(json(effective, host.home(), abi, kernel));
        } else {
            // Paths and reasons come from magus.yaml and the environment: shown, never sent as controls.
            text(effective, host, abi, kernel).forEach(l -> out.println(Echo.visible(l)));
        }
        out.flush();
        return 0;
    }

    static String json(EffectivePolicy effective, Path home, int abi, KernelLayer kernel) {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("mode", effective.config().mode().spelling());
        root.put("mode_source", effective.source().key());
        Optional<Policy> policy = effective.policy().policy();
        root.put("workspace_root", policy.map(Policy::workspaceRoot).orElse(effective.config().workspaceRoot()).toString());
        effective.file().ifPresent(f -> root.put("workspace_file", f.toString()));
        effective.config().spellNames().forEach(root.putArray("spells")::add);
        effective.config().target().ifPresent(t -> {
            root.put("target", t.ref());
            root.put("target_writes", t.writes());
        });
        root.put("policy", policy.isPresent());
        if (policy.isPresent()) {
            Policy p = policy.get();
            ArrayNode rules = root.putArray("rules");
            for (Rule r : p.rules()) {
                ObjectNode rule = rules.addObject();
                rule.put("path", EffectivePolicy.shownPath(r, Optional.empty()));
                rule.put("bits", r.mode().letters());
                rule.put("origin", r.origin());
                List<String> stores = CredentialGrants.stores(r, home);
                if (!stores.isEmpty()) {
                    stores.forEach(rule.putArray("credential_stores")::add);
                }
            }
            ArrayNode notes = root.putArray("notes");
            for (PolicyNote n : p.notes()) {
                ObjectNode note = notes.addObject();
                note.put("kind", n.kind().label());
                note.put("origin", n.origin());
                note.put("subject", n.subject());
                note.put("why", n.why());
            }
            ObjectNode env = root.putObject("env");
            Platform.current().baseline().entries().forEach(env.putArray("baseline")::add);
            p.env().entries().forEach(env.putArray("passthrough")::add);
            SET_BY_MAGUS.forEach(env.putArray("set_by_magus")::add);
            ArrayNode control = root.putArray("control_files");
            ControlFiles.entries().forEach(control::add);
            LeaseView.json(root, p);
            NetworkLines.json(root, p.network());
        }
        ObjectNode landlock = root.putObject("landlock");
        landlock.put("abi", abi);
        landlock.put("kernel_layer", kernel.kind());
        landlock.put("summary", kernel.summary());
        kernel.unenforced().forEach(landlock.putArray("unenforced")::add);
        kernel.diagnostic().ifPresent(d -> landlock.put("diagnostic", d));
        try {
            return mapper.writeValueAsString(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write a JSON tree of strings", e);
        }
    }

    /** Whether {@code origin} ({@code spell:node/npm-cache}) is a cache its spell has made before a run. */
    private static boolean createdBySpell(EffectivePolicy effective, String origin) {
        if (!origin.startsWith("spell:") || origin.indexOf('/') < 0) {
            return false;
        }
        String spell = origin.substring("spell:".length(), origin.indexOf('/'));
        String entry = origin.substring(origin.indexOf('/') + 1);
        return effective.config().spells().knows(spell) && effective.config().spells().spell(spell).creates().contains(entry);
    }

    /** Which spells, and why those: the rule the process falls under. */
    private static String spells(EffectivePolicy effective) {
        List<String> names = effective.config().spellNames();
        String which = names.isEmpty() ? "none" : String.join(", ", names);
        String why = effective.config().request().op()
                .map(o -> "a spell op's child: its project's spells plus " + o)
                .orElse("every spell the workspace's projects bind");
        return which + " (" + why + ")";
    }

    static List<String> text(EffectivePolicy effective, Host host, int abi, KernelLayer kernel) {
        Optional<Policy> policy = effective.policy().policy();
        Path home = policy.map(Policy::home).orElse(host.home());
        List<String> lines = new ArrayList<>();
        Mode mode = effective.config().mode();
        Path root = policy.map(Policy::workspaceRoot).orElse(effective.config().workspaceRoot());
        List<List<String>> head = new ArrayList<>();
        head.add(List.of("mode", mode.spelling() + " (" + effective.source().describe() + ")"));
        head.add(List.of("workspace", Locations.display(root, home)
                + effective.file().map(f -> "").orElse(" (no magus.yaml at or above the current directory)")));
        head.add(List.of("spells", spells(effective)));
        effective.config().target().ifPresent(t -> head.add(List.of("target", t.ref() + " in " + t.project() + ": "
                + String.join(" ", t.run()) + (t.writes() ? " (writes: audited for descendant projects)" : ""))));
        head.add(List.of("landlock", abi == 0 ? "not available on this host (ABI 0)" : "ABI " + abi));
        head.add(List.of("kernel layer", kernel.summary()));
        if (mode != Mode.OFF) {
            head.add(List.of("unenforced", kernel.unenforced().isEmpty() ? "nothing at this ABI" : String.join(", ", kernel.unenforced())));
        }
        kernel.diagnostic().ifPresent(d -> head.add(List.of("", d)));
        lines.addAll(Tables.align(head, ""));
        if (policy.isEmpty()) {
            lines.add("");
            lines.add("no policy: the sandbox is off, so every check passes and children inherit the whole environment");
            return lines;
        }
        Policy p = policy.get();
        lines.add("");
        lines.add("rules (each path and everything beneath it)");
        List<List<String>> rules = new ArrayList<>();
        rules.add(List.of("PATH", "BITS", "GRANTED BY"));
        for (Rule r : p.rules()) {
            List<String> stores = CredentialGrants.stores(r, home);
            rules.add(List.of(EffectivePolicy.shownPath(r, Optional.of(home)), r.mode().letters(), r.origin()
                    + (stores.isEmpty() ? "" : "  ! credential store: " + String.join(", ", stores))));
        }
        lines.addAll(Tables.align(rules, "  "));
        lines.addAll(LeaseView.text(p, home));
        if (!p.notes().isEmpty()) {
            lines.add("");
            lines.add("not granted");
            List<List<String>> notes = new ArrayList<>();
            for (PolicyNote n : p.notes()) {
                String why = n.why();
                if ((n.origin().equals("core:cache") || createdBySpell(effective, n.origin())) && n.kind() == PolicyNote.Kind.SKIPPED) {
                    why += "; the first sandboxed run creates it";
                }
                String what = n.kind() == PolicyNote.Kind.NEEDS_TRUST ? n.subject() + " is " : "";
                notes.add(List.of(n.origin(), n.kind().label() + ": " + what + why));
            }
            lines.addAll(Tables.align(notes, "  "));
        }
        lines.add("");
        lines.add("environment (every other variable is dropped)");
        List<List<String>> env = new ArrayList<>();
        env.add(List.of("baseline", String.join(" ", Platform.current().baseline().entries())));
        env.add(List.of("passthrough", p.env().entries().isEmpty() ? "(none declared)" : String.join(" ", p.env().entries())));
        env.add(List.of("set by magus", String.join(" ", SET_BY_MAGUS)));
        env.add(List.of("", "(TMPDIR: the run's private temp dir; GIT_CONFIG_GLOBAL: ~/.gitconfig without credentials)"));
        lines.addAll(Tables.align(env, "  "));
        lines.add("");
        lines.add("control files (writes refused even inside a write grant, at any depth of the workspace)");
        lines.addAll(Tables.wrap(ControlFiles.entries(), "  ", 100));
        lines.add("");
        lines.addAll(NetworkLines.text(p.network()));
        return lines;
    }
}
