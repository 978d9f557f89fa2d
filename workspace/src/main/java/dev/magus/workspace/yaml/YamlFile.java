package dev.magus.workspace.yaml;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import java.io.StringReader;
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
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.reader.ReaderException;

/**
 * One YAML file's node tree and the walk over it. Every refusal is MGS2004 whose source is
 * {@code NAME:LINE:COLUMN KEY} (1-based), prefixed by what the file is to the reader
 * ({@code spell rbenv: }) so a message names the spell or project it is about.
 *
 * @param name   how the file is named in a source ({@code magus.yaml}, {@code .magus/spells/rbenv.yaml})
 * @param prefix put before every message ({@code "spell rbenv: "}, or empty)
 */
public record YamlFile(String name, String prefix) {
    public YamlFile {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(prefix, "prefix");
    }

    /** The document's root node; empty for an empty document. */
    public Optional<Node> compose(String text) {
        try {
            Node root = new Yaml(new SafeConstructor(new LoaderOptions())).compose(new StringReader(text));
            return Optional.ofNullable(root).filter(n -> !isNull(n));
        } catch (MarkedYAMLException e) {
            Mark mark = Optional.ofNullable(e.getProblemMark()).orElse(e.getContextMark());
            // The context says what was being read ("expected a single document in the stream"),
            // the problem what was found there; alone, "but found another document" says little.
            String problem = Optional.ofNullable(e.getProblem()).orElse(e.getMessage());
            String context = e.getContext() == null || e.getContext().isBlank() ? "" : e.getContext() + ", ";
            throw error(mark, "", "malformed YAML: " + context + problem);
        } catch (ReaderException e) {
            // A character YAML does not allow (NUL, most control characters): where it is, and which.
            throw error(at(text, e.getPosition()), "", "malformed YAML: character "
                    + String.format("U+%04X", e.getCodePoint()) + " is not allowed in YAML");
        } catch (YAMLException e) {
            throw error((Mark) null, "", "malformed YAML: " + e.getMessage());
        }
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

    /**
     * The value of the top-level section {@code name}, empty when absent or empty; the sections
     * themselves are their readers' (a key that is not a plain name, or this section twice, is refused).
     */
    public Optional<Node> section(MappingNode top, String name) {
        NodeTuple found = null;
        for (NodeTuple t : top.getValue()) {
            Node k = t.getKeyNode();
            if (!(k instanceof ScalarNode sk) || isNull(k)) {
                throw error(k.getStartMark(), "", "keys must be plain names");
            }
            if (sk.getValue().equals(name)) {
                if (found != null) {
                    throw error(k.getStartMark(), name, "duplicate key '" + name + "'");
                }
                found = t;
            }
        }
        return Optional.ofNullable(found).map(NodeTuple::getValueNode).filter(v -> !isNull(v));
    }

    /** The keys of a mapping, each once; a key outside {@code allowed} is refused. */
    public Map<String, NodeTuple> keys(MappingNode map, String at, Set<String> allowed) {
        Map<String, NodeTuple> out = new LinkedHashMap<>();
        for (NodeTuple t : map.getValue()) {
            Node k = t.getKeyNode();
            String keyPath = at.isEmpty() ? "" : at + ".";
            if (!(k instanceof ScalarNode sk) || isNull(k)) {
                throw error(k.getStartMark(), at, "keys " + (at.isEmpty() ? "" : "in " + at + " ") + "must be plain names");
            }
            String name = sk.getValue();
            if (!allowed.contains(name)) {
                throw error(k.getStartMark(), keyPath + Echo.cut(name), "unknown key " + Echo.quoted(name)
                        + (at.isEmpty() ? "" : " in " + at) + " (expected " + String.join(", ", allowed.stream().sorted().toList()) + ")");
            }
            if (out.containsKey(name)) {
                throw error(k.getStartMark(), keyPath + name, "duplicate key '" + name + "'" + (at.isEmpty() ? "" : " in " + at));
            }
            out.put(name, t);
        }
        return out;
    }

    /** The keys of a mapping whose keys are names the file chooses (targets), each once. */
    public Map<String, NodeTuple> names(MappingNode map, String at) {
        Map<String, NodeTuple> out = new LinkedHashMap<>();
        for (NodeTuple t : map.getValue()) {
            Node k = t.getKeyNode();
            if (!(k instanceof ScalarNode sk) || isNull(k)) {
                throw error(k.getStartMark(), at, "keys in " + at + " must be plain names");
            }
            if (out.putIfAbsent(sk.getValue(), t) != null) {
                throw error(k.getStartMark(), at + "." + Echo.cut(sk.getValue()), "duplicate key " + Echo.quoted(sk.getValue())
                        + " in " + at);
            }
        }
        return out;
    }

    public MappingNode mapping(Node node, String key, String message) {
        if (node instanceof MappingNode m) {
            return m;
        }
        throw error(node.getStartMark(), key, message + ", not " + describe(node));
    }

    public SequenceNode sequence(Node node, String key, String message) {
        if (node instanceof SequenceNode s) {
            return s;
        }
        throw error(node.getStartMark(), key, message + ", not " + describe(node));
    }

    /** A list of single values. */
    public List<String> scalars(Node node, String key, String message) {
        return sequence(node, key, message).getValue().stream().map(v -> scalar(v, key + "[]")).toList();
    }

    public String scalar(Node node, String key) {
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

    public boolean bool(Node node, String key) {
        if (node instanceof ScalarNode s && Tag.BOOL.equals(s.getTag())) {
            return Boolean.parseBoolean(s.getValue().toLowerCase(java.util.Locale.ROOT));
        }
        throw error(node.getStartMark(), key, key + " must be true or false, not " + describe(node));
    }

    public static boolean isNull(Node node) {
        return node instanceof ScalarNode && Tag.NULL.equals(node.getTag());
    }

    public static String describe(Node node) {
        if (node instanceof MappingNode) {
            return "a mapping";
        }
        if (node instanceof SequenceNode) {
            return "a list";
        }
        return isNull(node) ? "empty" : Echo.quoted(((ScalarNode) node).getValue());
    }

    /** {@code NAME:LINE:COLUMN} of a node. */
    public String position(Node node) {
        return position(node.getStartMark());
    }

    public String position(Mark mark) {
        return mark == null ? name : name + ":" + (mark.getLine() + 1) + ":" + (mark.getColumn() + 1);
    }

    public SandboxException error(Node node, String key, String message) {
        return error(node.getStartMark(), key, message);
    }

    public SandboxException error(Mark mark, String key, String message) {
        String source = position(mark) + (key.isEmpty() ? "" : " " + key);
        return new SandboxException(Diagnostic.of(Code.MGS2004, prefix + message, key, Operation.NONE, Layer.POLICY, source));
    }

    /** The same refusal with this file's prefix on its message (for what a lower layer refused). */
    public SandboxException prefixed(SandboxException e) {
        Diagnostic d = e.diagnostic();
        if (prefix.isEmpty() || d.message().startsWith(prefix)) {
            return e;
        }
        return new SandboxException(new Diagnostic(d.code(), prefix + d.message(), d.subject(), d.operation(), d.layer(),
                d.source(), d.details()), e);
    }
}
