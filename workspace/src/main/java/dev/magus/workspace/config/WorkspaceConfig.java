package dev.magus.workspace.config;

import dev.magus.events.DetailKey;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.policy.decl.SandboxEnv;
import dev.magus.policy.decl.Site;
import dev.magus.events.Mode;
import dev.magus.policy.decl.NetworkDecl;
import dev.magus.workspace.audit.ControlFilesAction;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.reader.ReaderException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * The {@code sandbox} section of a workspace's magus.yaml:
 *
 * <pre>
 * sandbox:
 *   mode: best-effort          # off (the default), best-effort or required
 *   controlFiles: restore      # restore (the default) or report: what the audit does with a changed control file
 *   supervise: true            # false (the default): every run observed by the supervisor (magus run --supervise)
 *   allow:
 *     - name: mise-installs
 *       env: MISE_DATA_DIR
 *       base: xdgData
 *       path: mise
 *       mode: rx
 *   env:
 *     passthrough: [MISE_TRUSTED_CONFIG_PATHS, "MISE_*"]
 *   network:                   # opt-in; absent is open
 *     mode: proxy              # open (the default), none or proxy
 *     allow: ["*.example.org", example.com]
 *     ports: [5432]            # loopback ports the child may connect to directly
 *     bind: [3000]             # ports the child may listen on
 *     unix: allow              # or socket paths; absent: socket(AF_UNIX) refused (MGS2015)
 * </pre>
 *
 * Any problem in the section is MGS2004 whose source is {@code magus.yaml:LINE:COLUMN KEY}
 * (1-based, pointing at the offending key or value): an unknown key, a wrong type, an unknown
 * mode, base or access mode, a malformed passthrough pattern, and malformed YAML anywhere in
 * the file. Other top-level sections are left to their owners.
 *
 * <p>When each is raised follows the specification: the settings ({@code sandbox.mode}, the
 * section's own keys) and malformed YAML at load, by {@link #read}; the declaration
 * ({@code allow}, {@code env}) "when the policy is built", by {@link #sandbox()}, so a
 * workspace that runs with the sandbox off is not stopped by a declaration it does not use.
 *
 * @param mode         the workspace's {@code sandbox.mode} (off when absent)
 * @param modeDeclared whether the file writes {@code sandbox.mode} at all (off written out is not the default)
 * @param section      the workspace layer's declaration, or why it cannot be honored
 * @param controlFiles what the control-file audit does with a control file a run created,
 *                     changed or removed ({@code sandbox.controlFiles}; restore when absent)
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
    private static final List<String> ALLOW_KEYS = List.of("name", "env", "base", "path", "mode");
    private static final Set<String> ENV_KEYS = Set.of("passthrough");

    /** A workspace without a sandbox section: off, nothing declared. */
    public static final WorkspaceConfig DEFAULT = new WorkspaceConfig(Mode.OFF, false, new Declared(SandboxDecl.empty(DeclLayer.workspace())));

    public WorkspaceConfig {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(controlFiles, "controlFiles");
    }

    /**
     * Reads {@code magusYaml}: a regular UTF-8 file of at most {@link ConfigText#MAX_BYTES}
     * bytes, after following a link.
     *
     * @throws SandboxException MGS2004 for anything the sandbox section cannot honor, YAML that
     *         does not parse, bytes that are not UTF-8, and a file that cannot be read as text
     *         (missing, a dangling link or a loop, a directory, a fifo, a device, too large,
     *         unreadable); never "no configuration"
     */
    public static WorkspaceConfig read(Path magusYaml) {
        return read(ConfigText.read(magusYaml), magusYaml);
    }

    /** Reads a magus.yaml from {@code in}; {@code file} names it in diagnostics. */
    public static WorkspaceConfig read(Reader in, Path file) {
        StringBuilder text = new StringBuilder();
        try {
            char[] buffer = new char[8192];
            for (int n; (n = in.read(buffer)) > 0; ) {
                text.append(buffer, 0, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return read(text.toString(), file);
    }

    /** Reads a magus.yaml's text; {@code file} names it in diagnostics. */
    public static WorkspaceConfig read(String text, Path file) {
        return parse(text, file).config();
    }

    /**
     * {@link #parse(String, Path)} of the file's text, read as {@link #read(Path)} reads it.
     *
     * @throws SandboxException as {@link #read(Path)}
     */
    public static ParsedConfig parse(Path magusYaml) {
        return parse(ConfigText.read(magusYaml), magusYaml);
    }

    /**
     * Reads a magus.yaml's text once: the sandbox section, and the document for the other
     * sections' readers. Refused as {@link #read(String, Path)} refuses.
     */
    public static ParsedConfig parse(String text, Path file) {
        Parser p = new Parser(file);
        try {
            Node root;
            try {
                root = new Yaml(new SafeConstructor(new LoaderOptions())).compose(new StringReader(text));
            } catch (MarkedYAMLException e) {
                Mark mark = Optional.ofNullable(e.getProblemMark()).orElse(e.getContextMark());
                // The context says what was being read ("expected a single document in the stream"),
                // the problem what was found there; alone, "but found another document" says little.
                String problem = Optional.ofNullable(e.getProblem()).orElse(e.getMessage());
                String context = e.getContext() == null || e.getContext().isBlank() ? "" : e.getContext() + ", ";
                throw p.error(mark, "", "malformed YAML: " + context + problem);
            } catch (ReaderException e) {
                // A character YAML does not allow (NUL, most control characters): where it is, and which.
                throw p.error(at(text, e.getPosition()), "", "malformed YAML: character "
                        + String.format("U+%04X", e.getCodePoint()) + " is not allowed in YAML");
            } catch (YAMLException e) {
                throw p.error(null, "", "malformed YAML: " + e.getMessage());
            }
            Optional<Node> document = Optional.ofNullable(root).filter(n -> !isNullNode(n));
            return new ParsedConfig(p.config(root), document);
        } catch (SandboxException e) {
            throw new SandboxException(e.diagnostic().withDetail(DetailKey.FILE, file.toString()), e);
        }
    }

    private static boolean isNullNode(Node node) {
        return dev.magus.workspace.yaml.YamlFile.isNull(node);
    }

    /** The mark of the {@code index}-th code point of {@code text}. */
    private static Mark at(String text, int index) {
        int line = 0;
        int column = 0;
        int offset = 0;
        for (int i = 0; i < index && offset < text.length(); i++) {
            int cp = text.codePointAt(offset);
            offset += Character.charCount(cp);
            if (cp == '\n') {
                line++;
                column = 0;
            } else {
                column++;
            }
        }
        return new Mark("", index, line, column, new int[0], 0);
    }

    /** Walks the node tree; keeps the file name for positions. */
    private static final class Parser {
        private final String name;
        private final Path file;

        Parser(Path file) {
            this.file = file;
            Path fileName = file.getFileName();
            this.name = fileName == null ? file.toString() : fileName.toString();
        }

        WorkspaceConfig config(Node root) {
            if (root == null || isNull(root)) {
                return DEFAULT;
            }
            MappingNode top = mapping(root, "", "magus.yaml must be a mapping of sections");
            Map<String, NodeTuple> sections = keys(top, "", Optional.empty());
            NodeTuple sandbox = sections.get("sandbox");
            if (sandbox == null || isNull(sandbox.getValueNode())) {
                return DEFAULT;
            }
            MappingNode section = mapping(sandbox.getValueNode(), "sandbox", "sandbox must be a mapping (mode, controlFiles, supervise, allow, env, network)");
            Map<String, NodeTuple> keys = keys(section, "sandbox", Optional.of(SANDBOX_KEYS));

            Mode mode = Mode.OFF;
            NodeTuple modeTuple = keys.get("mode");
            boolean declared = modeTuple != null;
            if (declared) {
                Node v = modeTuple.getValueNode();
                mode = Mode.parse(scalar(v, "sandbox.mode"), position(v) + " sandbox.mode");
            }
            ControlFilesAction controlFiles = ControlFilesAction.RESTORE;
            NodeTuple controlTuple = keys.get("controlFiles");
            if (controlTuple != null) {
                Node v = controlTuple.getValueNode();
                String value = scalar(v, "sandbox.controlFiles");
                controlFiles = ControlFilesAction.parse(value).orElseThrow(() -> error(v.getStartMark(), "sandbox.controlFiles",
                        "unknown sandbox.controlFiles '" + value + "' (expected restore or report)"));
            }
            boolean supervise = false;
            NodeTuple superviseTuple = keys.get("supervise");
            if (superviseTuple != null) {
                Node v = superviseTuple.getValueNode();
                String value = scalar(v, "sandbox.supervise");
                if (!value.equals("true") && !value.equals("false")) {
                    throw error(v.getStartMark(), "sandbox.supervise", "sandbox.supervise must be true or false, not '"
                            + value + "'");
                }
                supervise = value.equals("true");
            }
            try {
                return new WorkspaceConfig(mode, declared, new Declared(declaration(keys)), controlFiles, supervise);
            } catch (SandboxException e) {
                return new WorkspaceConfig(mode, declared, new Refused(e.diagnostic().withDetail(DetailKey.FILE, file.toString())),
                        controlFiles, supervise);
            }
        }

        private SandboxDecl declaration(Map<String, NodeTuple> keys) {
            List<SandboxAllow> allow = new ArrayList<>();
            NodeTuple allowTuple = keys.get("allow");
            if (allowTuple != null && !isNull(allowTuple.getValueNode())) {
                SequenceNode seq = sequence(allowTuple.getValueNode(), "sandbox.allow", "sandbox.allow must be a list of entries");
                for (int i = 0; i < seq.getValue().size(); i++) {
                    allow.add(allowEntry(seq.getValue().get(i), "sandbox.allow[" + i + "]"));
                }
            }
            SandboxEnv env = SandboxEnv.EMPTY;
            NodeTuple envTuple = keys.get("env");
            if (envTuple != null && !isNull(envTuple.getValueNode())) {
                env = env(envTuple.getValueNode());
            }
            NetworkDecl network = NetworkDecl.EMPTY;
            NodeTuple networkTuple = keys.get("network");
            if (networkTuple != null && !isNull(networkTuple.getValueNode())) {
                network = network(networkTuple.getValueNode());
            }
            return new SandboxDecl(allow, env, network, DeclLayer.workspace());
        }

        /** {@code sandbox.network}; every value's position is kept for its MGS2004. */
        private NetworkDecl network(Node node) {
            MappingNode map = mapping(node, "sandbox.network", "sandbox.network must be a mapping (mode, allow, ports, bind, unix)");
            Map<String, NodeTuple> keys = keys(map, "sandbox.network", Optional.of(Set.copyOf(NetworkDecl.KEYS)));
            Map<String, String> positions = new HashMap<>();
            Optional<String> mode = Optional.empty();
            NodeTuple modeTuple = keys.get("mode");
            if (modeTuple != null) {
                mode = Optional.of(scalar(modeTuple.getValueNode(), "sandbox.network.mode"));
                positions.put("mode", position(modeTuple.getValueNode()));
            }
            List<List<String>> lists = new ArrayList<>();
            for (String key : List.of("allow", "ports", "bind")) {
                List<String> values = new ArrayList<>();
                NodeTuple t = keys.get(key);
                if (t != null && !isNull(t.getValueNode())) {
                    SequenceNode seq = sequence(t.getValueNode(), "sandbox.network." + key, "sandbox.network." + key
                            + " must be a list");
                    for (int i = 0; i < seq.getValue().size(); i++) {
                        Node v = seq.getValue().get(i);
                        values.add(scalar(v, "sandbox.network." + key + "[" + i + "]"));
                        positions.put(key + "[" + i + "]", position(v));
                    }
                }
                lists.add(values);
            }
            Optional<List<String>> unix = Optional.empty();
            NodeTuple unixTuple = keys.get("unix");
            if (unixTuple != null && !isNull(unixTuple.getValueNode())) {
                Node v = unixTuple.getValueNode();
                positions.put("unix", position(v));
                if (v instanceof SequenceNode seq) {
                    List<String> paths = new ArrayList<>();
                    for (int i = 0; i < seq.getValue().size(); i++) {
                        Node p = seq.getValue().get(i);
                        paths.add(scalar(p, "sandbox.network.unix[" + i + "]"));
                        positions.put("unix[" + i + "]", position(p));
                    }
                    unix = Optional.of(paths);
                } else {
                    positions.put("unix[0]", position(v));
                    unix = Optional.of(List.of(scalar(v, "sandbox.network.unix")));
                }
            }
            return NetworkDecl.declare(mode, lists.get(0), lists.get(1), lists.get(2), unix, DeclLayer.workspace(),
                    new Site(position(node), "sandbox.network", positions));
        }

        private SandboxAllow allowEntry(Node node, String key) {
            MappingNode entry = mapping(node, key, key + " must be a mapping (name, env, base, path, mode)");
            Map<String, NodeTuple> keys = keys(entry, key, Optional.of(Set.copyOf(ALLOW_KEYS)));
            Map<String, String> values = new HashMap<>();
            Map<String, String> positions = new HashMap<>();
            for (String field : ALLOW_KEYS) {
                NodeTuple t = keys.get(field);
                if (t != null) {
                    Node v = t.getValueNode();
                    values.put(field, scalar(v, key + "." + field));
                    positions.put(field, position(v));
                }
            }
            Site site = new Site(position(node), key, positions);
            return SandboxAllow.declare(
                    Optional.ofNullable(values.get("name")),
                    Optional.ofNullable(values.get("env")),
                    Optional.ofNullable(values.get("base")),
                    Optional.ofNullable(values.get("path")),
                    Optional.ofNullable(values.get("mode")),
                    DeclLayer.workspace(), site);
        }

        private SandboxEnv env(Node node) {
            MappingNode env = mapping(node, "sandbox.env", "sandbox.env must be a mapping (passthrough)");
            Map<String, NodeTuple> keys = keys(env, "sandbox.env", Optional.of(ENV_KEYS));
            NodeTuple pass = keys.get("passthrough");
            if (pass == null || isNull(pass.getValueNode())) {
                return SandboxEnv.EMPTY;
            }
            SequenceNode seq = sequence(pass.getValueNode(), "sandbox.env.passthrough",
                    "sandbox.env.passthrough must be a list of variable names and PREFIX_* patterns");
            List<String> entries = new ArrayList<>();
            Map<String, String> positions = new HashMap<>();
            for (int i = 0; i < seq.getValue().size(); i++) {
                Node v = seq.getValue().get(i);
                String field = "passthrough[" + i + "]";
                entries.add(scalar(v, "sandbox.env." + field));
                positions.put(field, position(v));
            }
            return SandboxEnv.parse(entries, new Site(position(node), "sandbox.env", positions));
        }

        /** The keys of a mapping, each once; unknown ones refused when {@code allowed} is given. */
        private Map<String, NodeTuple> keys(MappingNode map, String at, Optional<Set<String>> allowed) {
            Map<String, NodeTuple> out = new LinkedHashMap<>();
            for (NodeTuple t : map.getValue()) {
                Node k = t.getKeyNode();
                String keyPath = at.isEmpty() ? "" : at + ".";
                if (!(k instanceof ScalarNode sk) || isNull(k)) {
                    throw error(k.getStartMark(), at, "keys " + (at.isEmpty() ? "" : "in " + at + " ") + "must be plain names");
                }
                String name = sk.getValue();
                if (allowed.isPresent() && !allowed.get().contains(name)) {
                    throw error(k.getStartMark(), keyPath + Echo.cut(name), "unknown key " + Echo.quoted(name) + " in " + at
                            + " (expected " + String.join(", ", allowed.get().stream().sorted().toList()) + ")");
                }
                if (out.containsKey(name) && (allowed.isPresent() || name.equals("sandbox"))) {
                    throw error(k.getStartMark(), keyPath + name, "duplicate key '" + name + "'"
                            + (at.isEmpty() ? "" : " in " + at));
                }
                out.putIfAbsent(name, t);
            }
            return out;
        }

        private MappingNode mapping(Node node, String key, String message) {
            if (node instanceof MappingNode m) {
                return m;
            }
            throw error(node.getStartMark(), key, message + ", not " + describe(node));
        }

        private SequenceNode sequence(Node node, String key, String message) {
            if (node instanceof SequenceNode s) {
                return s;
            }
            throw error(node.getStartMark(), key, message + ", not " + describe(node));
        }

        private String scalar(Node node, String key) {
            if (node instanceof ScalarNode s && !isNull(node)) {
                return s.getValue();
            }
            if (node instanceof ScalarNode s && s.getValue().equals("~")) {
                // YAML reads a bare ~ as null; someone who wrote it almost always meant home.
                String field = key.substring(key.lastIndexOf('.') + 1);
                throw error(node.getStartMark(), key, field + " is empty: an unquoted ~ is YAML's null, not your home"
                        + " directory; quote it (" + field + ": \"~/...\")");
            }
            throw error(node.getStartMark(), key, key + " must be a single value, not " + describe(node));
        }

        // One wording of a node's kind for magus.yaml and the spell files alike.
        private static boolean isNull(Node node) {
            return dev.magus.workspace.yaml.YamlFile.isNull(node);
        }

        private static String describe(Node node) {
            return dev.magus.workspace.yaml.YamlFile.describe(node);
        }

        private String position(Node node) {
            return position(node.getStartMark());
        }

        private String position(Mark mark) {
            return mark == null ? name : name + ":" + (mark.getLine() + 1) + ":" + (mark.getColumn() + 1);
        }

        SandboxException error(Mark mark, String key, String message) {
            String source = position(mark) + (key.isEmpty() ? "" : " " + key);
            return new SandboxException(Diagnostic.of(Code.MGS2004, message, key, Operation.NONE, Layer.POLICY, source));
        }
    }
}
