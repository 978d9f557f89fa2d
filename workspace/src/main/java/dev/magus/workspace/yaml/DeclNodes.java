package dev.magus.workspace.yaml;

import dev.magus.events.SandboxException;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.policy.decl.SandboxEnv;
import dev.magus.policy.decl.Site;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * A spell's or a target's {@code sandbox} in YAML: the workspace section's shape without its
 * settings ({@code mode}, {@code controlFiles}, {@code network} are the workspace's alone).
 * Each entry keeps the line and column of its fields, so a refusal names
 * {@code .magus/spells/rbenv.yaml:4:13 sandbox.allow[0].mode}.
 */
public final class DeclNodes {
    private static final Set<String> SECTION_KEYS = Set.of("allow", "env");

    private DeclNodes() {
    }

    /**
     * @param node  the {@code sandbox} value
     * @param key   its key path ({@code sandbox}, {@code projects[1].targets.test.sandbox})
     * @param layer the spell or target declaring it
     * @throws SandboxException MGS2004 for anything that cannot be honored, prefixed with what the file is
     */
    public static SandboxDecl read(YamlFile file, Node node, String key, DeclLayer layer) {
        if (YamlFile.isNull(node)) {
            return SandboxDecl.empty(layer);
        }
        MappingNode section = file.mapping(node, key, key + " must be a mapping (allow, env)");
        return read(file, file.keys(section, key, SECTION_KEYS), key, layer);
    }

    /**
     * The {@code allow} and {@code env} of a section whose keys the caller has read (the
     * workspace's, which has its settings beside them).
     *
     * @param keys the section's keys, checked by the caller
     * @throws SandboxException as {@link #read(YamlFile, Node, String, DeclLayer)}
     */
    public static SandboxDecl read(YamlFile file, Map<String, NodeTuple> keys, String key, DeclLayer layer) {
        try {
            List<SandboxAllow> allow = new ArrayList<>();
            NodeTuple allowTuple = keys.get("allow");
            if (allowTuple != null && !YamlFile.isNull(allowTuple.getValueNode())) {
                SequenceNode seq = file.sequence(allowTuple.getValueNode(), key + ".allow", key + ".allow must be a list of entries");
                for (int i = 0; i < seq.getValue().size(); i++) {
                    allow.add(entry(file, seq.getValue().get(i), key + ".allow[" + i + "]", layer));
                }
            }
            SandboxEnv env = SandboxEnv.EMPTY;
            NodeTuple envTuple = keys.get("env");
            if (envTuple != null && !YamlFile.isNull(envTuple.getValueNode())) {
                env = env(file, envTuple.getValueNode(), key + ".env");
            }
            return new SandboxDecl(allow, env, layer);
        } catch (SandboxException e) {
            throw file.prefixed(e);
        }
    }

    private static SandboxAllow entry(YamlFile file, Node node, String key, DeclLayer layer) {
        MappingNode entry = file.mapping(node, key, key + " must be a mapping (name, env, base, path, mode)");
        Map<String, NodeTuple> keys = file.keys(entry, key, Set.copyOf(SandboxAllow.KEYS));
        Map<String, String> values = new HashMap<>();
        Map<String, String> positions = new HashMap<>();
        for (String field : SandboxAllow.KEYS) {
            NodeTuple t = keys.get(field);
            if (t != null) {
                values.put(field, file.scalar(t.getValueNode(), key + "." + field));
                positions.put(field, file.position(t.getValueNode()));
            }
        }
        Site site = new Site(file.position(node), key, positions);
        return SandboxAllow.declare(
                Optional.ofNullable(values.get("name")),
                Optional.ofNullable(values.get("env")),
                Optional.ofNullable(values.get("base")),
                Optional.ofNullable(values.get("path")),
                Optional.ofNullable(values.get("mode")),
                layer, site);
    }

    private static SandboxEnv env(YamlFile file, Node node, String key) {
        MappingNode env = file.mapping(node, key, key + " must be a mapping (passthrough)");
        Map<String, NodeTuple> keys = file.keys(env, key, Set.of("passthrough"));
        NodeTuple pass = keys.get("passthrough");
        if (pass == null || YamlFile.isNull(pass.getValueNode())) {
            return SandboxEnv.EMPTY;
        }
        SequenceNode seq = file.sequence(pass.getValueNode(), key + ".passthrough",
                key + ".passthrough must be a list of variable names and PREFIX_* patterns");
        List<String> entries = new ArrayList<>();
        Map<String, String> positions = new HashMap<>();
        for (int i = 0; i < seq.getValue().size(); i++) {
            Node v = seq.getValue().get(i);
            String field = "passthrough[" + i + "]";
            entries.add(file.scalar(v, key + "." + field));
            positions.put(field, file.position(v));
        }
        return SandboxEnv.parse(entries, new Site(file.position(node), key, positions));
    }
}
