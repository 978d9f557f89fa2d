package dev.magus.workspace.config;

import dev.magus.events.DetailKey;
import dev.magus.events.Echo;
import dev.magus.events.Diagnostic;
import dev.magus.events.SandboxException;
import dev.magus.events.Suggestions;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.policy.decl.Site;
import dev.magus.events.Mode;
import dev.magus.policy.decl.NetworkDecl;
import dev.magus.workspace.audit.ControlFilesAction;
import dev.magus.workspace.yaml.DeclNodes;
import dev.magus.workspace.yaml.YamlFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * The {@code sandbox} section of a workspace's magus.yaml (the README shows one). A problem in it
 * is MGS2004 sourced {@code magus.yaml:LINE:COLUMN KEY}. The settings and malformed YAML are
 * refused at load ({@link #read}); the declaration only when the policy is built
 * ({@link #sandbox()}), so a workspace run with the sandbox off is not stopped by it.
 *
 * @param mode         the workspace's {@code sandbox.mode} (off when absent)
 * @param modeDeclared whether the file writes {@code sandbox.mode} at all (off written out is not the default)
 * @param section      the workspace layer's declaration, or why it cannot be honored
 * @param controlFiles what the control-file audit does with a changed control file ({@code sandbox.controlFiles}; restore when absent)
 * @param supervise    whether every run here is supervised ({@code sandbox.supervise}; false when absent)
 */
public record WorkspaceConfig(Mode mode, boolean modeDeclared, Section section, ControlFilesAction controlFiles,
        boolean supervise) {

    /** Without {@code sandbox.supervise}: runs are not supervised unless asked. */
    public WorkspaceConfig(Mode mode, boolean modeDeclared, Section section, ControlFilesAction controlFiles) {
        this(mode, modeDeclared, section, controlFiles, false);
    }

    /** Without {@code sandbox.controlFiles}: the audit restores. */
    public WorkspaceConfig(Mode mode, boolean modeDeclared, Section section) {
        this(mode, modeDeclared, section, ControlFilesAction.RESTORE);
    }

    /** The {@code allow} and {@code env} part of the section, checked at load, refused (if at all) when used. */
    public sealed interface Section permits Declared, Refused {
        /**
         * @throws SandboxException MGS2004 when the declaration cannot be honored
         */
        SandboxDecl decl();
    }

    /** A declaration that can be honored. */
    public record Declared(SandboxDecl decl) implements Section {
        public Declared {
            Objects.requireNonNull(decl, "decl");
            if (!(decl.layer() instanceof DeclLayer.Workspace)) {
                throw new IllegalArgumentException("a workspace config holds the workspace layer, not " + decl.layer().label());
            }
        }
    }

    /** A declaration that cannot: its MGS2004, raised when the policy is built. */
    public record Refused(Diagnostic diagnostic) implements Section {
        public Refused {
            Objects.requireNonNull(diagnostic, "diagnostic");
        }

        @Override
        public SandboxDecl decl() {
            throw new SandboxException(diagnostic);
        }
    }

    /**
     * The workspace layer's declaration, for the policy builder.
     *
     * @throws SandboxException MGS2004 when it cannot be honored
     */
    public SandboxDecl sandbox() {
        return section.decl();
    }
    private static final Set<String> SANDBOX_KEYS = Set.of("mode", "controlFiles", "supervise", "allow", "env", "network");
    /** The sections of a magus.yaml: this class reads {@code sandbox}, the projects' reader {@code projects}. */
    private static final Set<String> SECTIONS = Set.of("sandbox", "projects");

    /** A workspace without a sandbox section: off, nothing declared. */
    public static final WorkspaceConfig DEFAULT = new WorkspaceConfig(Mode.OFF, false, new Declared(SandboxDecl.empty(DeclLayer.workspace())));

    public WorkspaceConfig {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(controlFiles, "controlFiles");
    }

    /** Reads a magus.yaml's text; {@code file} names it in diagnostics. */
    public static WorkspaceConfig read(String text, Path file) {
        return parse(text, file).config();
    }

    /**
     * {@link #parse(String, Path)} of {@code magusYaml}: a regular UTF-8 file of at most
     * {@link ConfigText#MAX_BYTES} bytes, after following a link.
     *
     * @throws SandboxException MGS2004 for anything the sandbox section cannot honor, YAML that
     *         does not parse, bytes that are not UTF-8, and a file that cannot be read as text
     *         (missing, a dangling link or a loop, a directory, a fifo, a device, too large,
     *         unreadable); never "no configuration"
     */
    public static ParsedConfig parse(Path magusYaml) {
        return parse(ConfigText.read(magusYaml), magusYaml);
    }

    /**
     * Reads a magus.yaml's text once: the sandbox section, and the document for the other
     * sections' readers. Refused as {@link #read(String, Path)} refuses.
     */
    public static ParsedConfig parse(String text, Path file) {
        Path fileName = file.getFileName();
        Parser p = new Parser(new YamlFile(fileName == null ? file.toString() : fileName.toString(), ""), file);
        try {
            Optional<Node> document = p.yaml.compose(text);
            return new ParsedConfig(p.config(document), document);
        } catch (SandboxException e) {
            throw new SandboxException(e.diagnostic().withDetail(DetailKey.FILE, file.toString()), e);
        }
    }

    /** Reads the {@code sandbox} section off the node tree; {@code file} goes in a refusal's details. */
    private record Parser(YamlFile yaml, Path file) {
        WorkspaceConfig config(Optional<Node> root) {
            if (root.isEmpty()) {
                return DEFAULT;
            }
            MappingNode top = yaml.mapping(root.get(), "", "magus.yaml must be a mapping of sections");
            misspeltSection(top);
            Optional<Node> sandbox = yaml.section(top, "sandbox");
            if (sandbox.isEmpty()) {
                return DEFAULT;
            }
            MappingNode section = yaml.mapping(sandbox.get(), "sandbox",
                    "sandbox must be a mapping (mode, controlFiles, supervise, allow, env, network)");
            Map<String, NodeTuple> keys = yaml.keys(section, "sandbox", SANDBOX_KEYS);

            Mode mode = Mode.OFF;
            NodeTuple modeTuple = keys.get("mode");
            boolean declared = modeTuple != null;
            if (declared) {
                Node v = modeTuple.getValueNode();
                mode = Mode.parse(yaml.scalar(v, "sandbox.mode"), yaml.position(v) + " sandbox.mode");
            }
            ControlFilesAction controlFiles = ControlFilesAction.RESTORE;
            NodeTuple controlTuple = keys.get("controlFiles");
            if (controlTuple != null) {
                Node v = controlTuple.getValueNode();
                String value = yaml.scalar(v, "sandbox.controlFiles");
                controlFiles = ControlFilesAction.parse(value).orElseThrow(() -> yaml.error(v, "sandbox.controlFiles",
                        "unknown sandbox.controlFiles '" + value + "' (expected restore or report)"));
            }
            boolean supervise = false;
            NodeTuple superviseTuple = keys.get("supervise");
            if (superviseTuple != null) {
                Node v = superviseTuple.getValueNode();
                String value = yaml.scalar(v, "sandbox.supervise");
                if (!value.equals("true") && !value.equals("false")) {
                    throw yaml.error(v, "sandbox.supervise", "sandbox.supervise must be true or false, not '" + value + "'");
                }
                supervise = value.equals("true");
            }
            try {
                SandboxDecl decl = DeclNodes.read(yaml, keys, "sandbox", DeclLayer.workspace());
                NodeTuple networkTuple = keys.get("network");
                if (networkTuple != null && !YamlFile.isNull(networkTuple.getValueNode())) {
                    decl = decl.withNetwork(network(networkTuple.getValueNode()));
                }
                return new WorkspaceConfig(mode, declared, new Declared(decl), controlFiles, supervise);
            } catch (SandboxException e) {
                return new WorkspaceConfig(mode, declared, new Refused(e.diagnostic().withDetail(DetailKey.FILE, file.toString())),
                        controlFiles, supervise);
            }
        }

        /**
         * Other tools' sections may share the file, but one a typo away from magus's own is refused
         * in every mode: a misspelt {@code sandbox} would otherwise be a sandbox silently off.
         */
        private void misspeltSection(MappingNode top) {
            for (NodeTuple t : top.getValue()) {
                if (t.getKeyNode() instanceof ScalarNode k && !SECTIONS.contains(k.getValue())) {
                    List<String> meant = Suggestions.closest(k.getValue().toLowerCase(Locale.ROOT), SECTIONS);
                    if (!meant.isEmpty()) {
                        throw yaml.error(k, Echo.cut(k.getValue()), "unknown section " + Echo.quoted(k.getValue())
                                + " (did you mean " + meant.get(0) + "?)");
                    }
                }
            }
        }

        /** {@code sandbox.network}; every value's position is kept for its MGS2004. */
        private NetworkDecl network(Node node) {
            MappingNode map = yaml.mapping(node, "sandbox.network", "sandbox.network must be a mapping (mode, allow, ports, bind, unix)");
            Map<String, NodeTuple> keys = yaml.keys(map, "sandbox.network", Set.copyOf(NetworkDecl.KEYS));
            Map<String, String> positions = new HashMap<>();
            Optional<String> mode = Optional.empty();
            NodeTuple modeTuple = keys.get("mode");
            if (modeTuple != null) {
                mode = Optional.of(yaml.scalar(modeTuple.getValueNode(), "sandbox.network.mode"));
                positions.put("mode", yaml.position(modeTuple.getValueNode()));
            }
            List<List<String>> lists = new ArrayList<>();
            for (String key : List.of("allow", "ports", "bind")) {
                List<String> values = new ArrayList<>();
                NodeTuple t = keys.get(key);
                if (t != null && !YamlFile.isNull(t.getValueNode())) {
                    SequenceNode seq = yaml.sequence(t.getValueNode(), "sandbox.network." + key, "sandbox.network." + key
                            + " must be a list");
                    for (int i = 0; i < seq.getValue().size(); i++) {
                        Node v = seq.getValue().get(i);
                        values.add(yaml.scalar(v, "sandbox.network." + key + "[" + i + "]"));
                        positions.put(key + "[" + i + "]", yaml.position(v));
                    }
                }
                lists.add(values);
            }
            Optional<List<String>> unix = Optional.empty();
            NodeTuple unixTuple = keys.get("unix");
            if (unixTuple != null && !YamlFile.isNull(unixTuple.getValueNode())) {
                Node v = unixTuple.getValueNode();
                positions.put("unix", yaml.position(v));
                if (v instanceof SequenceNode seq) {
                    List<String> paths = new ArrayList<>();
                    for (int i = 0; i < seq.getValue().size(); i++) {
                        Node p = seq.getValue().get(i);
                        paths.add(yaml.scalar(p, "sandbox.network.unix[" + i + "]"));
                        positions.put("unix[" + i + "]", yaml.position(p));
                    }
                    unix = Optional.of(paths);
                } else {
                    positions.put("unix[0]", yaml.position(v));
                    unix = Optional.of(List.of(yaml.scalar(v, "sandbox.network.unix")));
                }
            }
            return NetworkDecl.declare(mode, lists.get(0), lists.get(1), lists.get(2), unix, DeclLayer.workspace(),
                    new Site(yaml.position(node), "sandbox.network", positions));
        }
    }
}
