package dev.magus.workspace.spell;

import dev.magus.env.shim.ShimManager;
import dev.magus.events.SandboxException;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.workspace.yaml.DeclNodes;
import dev.magus.workspace.yaml.YamlFile;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;

/**
 * A user spell, {@code .magus/spells/NAME.yaml}: the workspace section's {@code sandbox} shape,
 * plus {@code registryHosts} (the hosts its tools fetch from) and {@code versionManagers}
 * ({@link YamlManagers}). As every spell's, its declaration is refused when it loads (MGS2004
 * naming the spell, file, line and column), and its paths name variables through {@code env}
 * and {@code base}, never {@code $VAR}.
 */
final class YamlSpell {
    private static final Set<String> KEYS = Set.of("sandbox", "registryHosts", YamlManagers.KEY);

    private YamlSpell() {
    }

    /**
     * @param name     the spell, from the file's name
     * @param text     the file's text
     * @param fileName how diagnostics name the file ({@code .magus/spells/NAME.yaml})
     */
    static Spell read(String name, String text, String fileName) {
        YamlFile file = new YamlFile(fileName, "spell " + name + ": ");
        Optional<Node> root = file.compose(text);
        DeclLayer layer = DeclLayer.spell(name);
        if (root.isEmpty()) {
            return new Spell(name, SandboxDecl.empty(layer), List.of(), List.of(), fileName);
        }
        MappingNode top = file.mapping(root.get(), "", "a spell file must be a mapping (sandbox, registryHosts, versionManagers)");
        Map<String, NodeTuple> keys = file.keys(top, "", KEYS);
        SandboxDecl decl = Optional.ofNullable(keys.get("sandbox"))
                .map(t -> DeclNodes.read(file, t.getValueNode(), "sandbox", layer))
                .orElse(SandboxDecl.empty(layer));
        List<String> hosts = Optional.ofNullable(keys.get("registryHosts"))
                .filter(t -> !YamlFile.isNull(t.getValueNode()))
                .map(t -> file.scalars(t.getValueNode(), "registryHosts", "registryHosts must be a list of host names"))
                .orElse(List.of());
        List<ShimManager> managers = Optional.ofNullable(keys.get(YamlManagers.KEY))
                .map(t -> YamlManagers.read(file, t.getValueNode(), name, decl.passthrough()))
                .orElse(List.of());
        try {
            return new Spell(name, decl, managers, hosts, fileName);
        } catch (SandboxException e) {
            Node at = keys.containsKey("registryHosts") ? keys.get("registryHosts").getValueNode() : root.get();
            throw file.error(at, "registryHosts", e.diagnostic().message());
        }
    }
}
