package dev.magus.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.magus.landlock.abi.AbiRights;
import dev.magus.landlock.denials.audit.AuditAvailability;
import dev.magus.landlock.sys.Capabilities;
import dev.magus.events.Mode;
import dev.magus.orchestrator.contain.Containment;
import dev.magus.orchestrator.contain.RunCgroups;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
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
 * {@code magus probe [--json]}: what the sandbox can do on this host.
 *
 * <p>{@code --json} prints one object with stable field names:
 *
 * <pre>
 * {
 *   "landlock_abi": 7,                     (0: no Landlock)
 *   "kernel": "6.8.0-45-generic",          (the running kernel's release)
 *   "modes": [ {"mode": "off" | "best-effort" | "required", "runs": true | false,
 *               "kernel_layer": "confine" | "unconfined" | "refuse", "summary": "...",
 *               "diagnostic": "MGS2012 ..."}, ... ],      (diagnostic only when there is one)
 *   "unenforced": ["truncate", ...],       (what Landlock leaves unenforced at this ABI)
 *   "network_unenforced": ["addresses: ...", ...], (what the network policy cannot hold here)
 *   "layers": ["landlock fs: ...", "seccomp: ...", ...], (what each layer holds here)
 *   "capabilities": {"root": true | false, "dropped": true | false, "summary": "..."},
 *   "containment": {"cgroup": true | false, "summary": "..."}, (how a run's processes end with it, and why)
 *   "audit": {"available": true | false, "summary": "..."}
 * }
 * </pre>
 *
 * Mode off always runs; best-effort always runs, confined or with the binding checks only;
 * required runs only with ABI 3 or newer.
 */
@Command(name = "probe", description = "Prints this host's Landlock ABI and which sandbox modes can run here.")
final class ProbeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "Prints the answer as one JSON object (schema in the class documentation).")
    boolean json;

    private final CliContext context;

    ProbeCommand() {
        this(CliContext.system());
    }

    ProbeCommand(CliContext context) {
        this.context = context;
    }

    /**
     * Whether children get their capabilities cut, decided as the launcher decides it: a root
     * magus, or one holding any capability beyond the kept set, cuts its children to that set.
     */
    record Privileges(boolean root, boolean dropped, String summary) {
        static Privileges fromStatus(String procSelfStatus) {
            boolean root = false;
            long held = 0;
            for (String line : procSelfStatus.lines().toList()) {
                String[] f = line.trim().split("\\s+");
                if (f.length < 2) {
                    continue;
                }
                switch (f[0]) {
                    case "Uid:" -> root = root || f[1].equals("0") || (f.length > 2 && f[2].equals("0"));
                    case "CapEff:", "CapPrm:" -> held |= Long.parseUnsignedLong(f[1], 16);
                    default -> {
                    }
                }
            }
            boolean dropped = Capabilities.cutNeeded(root, held);
            String summary = dropped
                    ? (root ? "magus runs as root: " : "magus holds privileged capabilities: ")
                            + "children are cut to Docker's default set minus mknod and net_raw (no CAP_SYS_ADMIN, CAP_PERFMON, CAP_NET_RAW or CAP_NET_ADMIN)"
                    : "not root: children keep this user's (unprivileged) capabilities; nothing to drop";
            return new Privileges(root, dropped, summary);
        }

        static Optional<Privileges> ofThisProcess() {
            try {
                return Optional.of(fromStatus(Files.readString(Path.of("/proc/self/status"))));
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        int abi = context.probe().abi();
        String kernel = kernelRelease();
        AuditAvailability audit = context.audit().get();
        Optional<Privileges> privileges = Privileges.ofThisProcess();
        Containment strays = RunCgroups.containment();
        if (json) {
            out.println(json(abi, kernel, audit, privileges, strays));
        } else {
            text(abi, kernel, audit, privileges, strays).forEach(out::println);
        }
        out.flush();
        return 0;
    }

    static String json(int abi, String kernel, AuditAvailability audit, Optional<Privileges> privileges,
                       Containment strays) {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("landlock_abi", abi);
        root.put("kernel", kernel);
        ArrayNode modes = root.putArray("modes");
        for (Mode m : Mode.values()) {
            KernelLayer k = KernelLayer.of(m, abi);
            ObjectNode mode = modes.addObject();
            mode.put("mode", m.spelling());
            mode.put("runs", !k.kind().equals("refuse"));
            mode.put("kernel_layer", k.kind());
            mode.put("summary", k.summary());
            k.diagnostic().ifPresent(d -> mode.put("diagnostic", d));
        }
        AbiRights.unenforced(abi).forEach(root.putArray("unenforced")::add);
        AbiRights.networkUnenforced(abi).forEach(root.putArray("network_unenforced")::add);
        AbiRights.layers(abi).forEach(root.putArray("layers")::add);
        ObjectNode caps = root.putObject("capabilities");
        privileges.ifPresentOrElse(p -> {
            caps.put("root", p.root());
            caps.put("dropped", p.dropped());
            caps.put("summary", p.summary());
        }, () -> caps.put("summary", "unknown: /proc/self/status cannot be read"));
        ObjectNode c = root.putObject("containment");
        c.put("cgroup", strays instanceof Containment.ByCgroup);
        c.put("summary", strays.describe());
        ObjectNode a = root.putObject("audit");
        a.put("available", audit instanceof AuditAvailability.Available);
        a.put("summary", audit.describe());
        try {
            return mapper.writeValueAsString(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write a JSON tree of strings", e);
        }
    }

    static List<String> text(int abi, String kernel, AuditAvailability audit, Optional<Privileges> privileges,
                             Containment strays) {
        List<String> lines = new ArrayList<>();
        List<List<String>> head = new ArrayList<>();
        head.add(List.of("landlock", abi == 0 ? "not available (ABI 0)" : "ABI " + abi));
        head.add(List.of("kernel", kernel));
        List<String> gaps = AbiRights.unenforced(abi);
        head.add(List.of("unenforced", gaps.isEmpty() ? "nothing at this ABI" : String.join(", ", gaps)));
        List<String> net = AbiRights.networkUnenforced(abi);
        for (int i = 0; i < net.size(); i++) {
            head.add(List.of(i == 0 ? "network unenforced" : "", net.get(i)));
        }
        List<String> layers = AbiRights.layers(abi);
        for (int i = 0; i < layers.size(); i++) {
            head.add(List.of(i == 0 ? "layers" : "", layers.get(i)));
        }
        head.add(List.of("capabilities", privileges.map(Privileges::summary).orElse("unknown: /proc/self/status cannot be read")));
        head.add(List.of("containment", strays.describe()));
        head.add(List.of("kernel audit", (audit instanceof AuditAvailability.Available ? "readable: " : "not readable: ")
                + audit.describe()));
        lines.addAll(Tables.align(head, ""));
        lines.add("");
        lines.add("modes");
        List<List<String>> modes = new ArrayList<>();
        for (Mode m : Mode.values()) {
            KernelLayer k = KernelLayer.of(m, abi);
            boolean runs = !k.kind().equals("refuse");
            modes.add(List.of(m.spelling(), runs ? "runs" : "refused", k.summary()
                    + k.diagnostic().map(d -> " (" + d + ")").orElse("")));
        }
        lines.addAll(Tables.align(modes, "  "));
        return lines;
    }

    private static String kernelRelease() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
        } catch (IOException | RuntimeException e) {
            return System.getProperty("os.version", "unknown");
        }
    }
}
