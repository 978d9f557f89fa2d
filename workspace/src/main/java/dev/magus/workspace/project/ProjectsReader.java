package dev.magus.workspace.project;

import dev.magus.events.Echo;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.workspace.yaml.DeclNodes;
import dev.magus.workspace.yaml.YamlFile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * magus.yaml's {@code projects} section (docs/spells.md shows one). Everything is checked when
 * the file loads, as the specification refuses a target's declaration "when its magusfile
 * loads": an unknown key, a dir that is absolute or climbs out of the workspace, the same dir
 * twice, an unknown spell, a target without a command or with a name the command line cannot
 * name, and every refusal of its {@code sandbox}. Each is MGS2004 sourced
 * {@code magus.yaml:LINE:COLUMN KEY}.
 */
public final class ProjectsReader {
    private static final Set<String> PROJECT_KEYS = Set.of("dir", "spells", "targets");
    private static final Set<String> TARGET_KEYS = Set.of("run", "writes", "sandbox");
    private static final Pattern TARGET_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,63}");

    private ProjectsReader() {
    }

    /**
     * The section of a document already parsed ({@link dev.magus.workspace.config.ParsedConfig#document()}),
     * so the file is not read or parsed again.
     *
     * @param file       names the file in diagnostics
     * @param root       the document's root node; empty for an empty document
     * @param knownSpell whether a spell of that name exists (built in, YAML or a provider's)
     */
    public static Projects read(YamlFile file, Optional<Node> root, Predicate<String> knownSpell) {
        if (root.isEmpty() || !(root.get() instanceof MappingNode top)) {
            // The sandbox section's reader refuses a file that is not a mapping of sections.
            return Projects.NONE;
        }
        Optional<Node> section = file.section(top, "projects");
        if (section.isEmpty()) {
            return Projects.NONE;
        }
        SequenceNode list = file.sequence(section.get(), "projects", "projects must be a list of {dir, spells, targets}");
        List<Project> projects = new ArrayList<>();
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < list.getValue().size(); i++) {
            Project p = project(file, list.getValue().get(i), "projects[" + i + "]", knownSpell);
            String before = seen.putIfAbsent(p.dir(), p.source());
            if (before != null) {
                throw file.error(list.getValue().get(i), "projects[" + i + "].dir", "project dir " + Echo.quoted(p.dir())
                        + " is registered twice (first at " + before + ")");
            }
            projects.add(p);
        }
        return new Projects(projects);
    }

    private static Project project(YamlFile file, Node node, String key, Predicate<String> knownSpell) {
        MappingNode map = file.mapping(node, key, key + " must be a mapping (dir, spells, targets)");
        Map<String, NodeTuple> keys = file.keys(map, key, PROJECT_KEYS);
        NodeTuple dirTuple = keys.get("dir");
        if (dirTuple == null) {
            throw file.error(node, key + ".dir", key + " needs a dir: the project's directory, relative to magus.yaml");
        }
        String dir = dir(file, dirTuple.getValueNode(), key + ".dir");
        List<String> spells = new ArrayList<>();
        NodeTuple spellsTuple = keys.get("spells");
        if (spellsTuple != null && !YamlFile.isNull(spellsTuple.getValueNode())) {
            SequenceNode seq = file.sequence(spellsTuple.getValueNode(), key + ".spells", key + ".spells must be a list of spell names");
            for (int i = 0; i < seq.getValue().size(); i++) {
                Node v = seq.getValue().get(i);
                String at = key + ".spells[" + i + "]";
                String spell = file.scalar(v, at);
                if (!knownSpell.test(spell)) {
                    throw file.error(v, at, "unknown spell " + Echo.quoted(spell) + ": not built in (node, java, rust, go, python,"
                            + " mise, asdf, nvm, sdkman), not in .magus/spells/" + Echo.cut(spell) + ".yaml, not from a provider");
                }
                if (!spells.contains(spell)) {
                    spells.add(spell);
                }
            }
        }
        List<Target> targets = new ArrayList<>();
        NodeTuple targetsTuple = keys.get("targets");
        if (targetsTuple != null && !YamlFile.isNull(targetsTuple.getValueNode())) {
            String at = key + ".targets";
            MappingNode tmap = file.mapping(targetsTuple.getValueNode(), at, at + " must be a mapping of target names");
            for (Map.Entry<String, NodeTuple> e : file.names(tmap, at).entrySet()) {
                targets.add(target(file, dir, e.getKey(), e.getValue(), at + "." + Echo.cut(e.getKey())));
            }
        }
        return new Project(dir, spells, targets, file.position(node));
    }

    private static Target target(YamlFile file, String dir, String name, NodeTuple tuple, String key) {
        if (!TARGET_NAME.matcher(name).matches()) {
            throw file.error(tuple.getKeyNode(), key, "target name " + Echo.quoted(name) + " cannot be named on the command line:"
                    + " letters, digits, '.', '-' and '_', at most 64");
        }
        MappingNode map = file.mapping(tuple.getValueNode(), key, key + " must be a mapping (run, writes, sandbox)");
        Map<String, NodeTuple> keys = file.keys(map, key, TARGET_KEYS);
        NodeTuple run = keys.get("run");
        if (run == null || YamlFile.isNull(run.getValueNode())) {
            throw file.error(tuple.getKeyNode(), key + ".run", "target " + Target.ref(dir, name) + " has no run: the command"
                    + " and its arguments, as a list ([gofmt, -w, .])");
        }
        List<String> argv = file.scalars(run.getValueNode(), key + ".run", key + ".run must be a list: the command and its arguments");
        if (argv.isEmpty() || argv.get(0).isEmpty()) {
            throw file.error(run.getValueNode(), key + ".run", "target " + Target.ref(dir, name) + " has an empty run: name the command");
        }
        for (String a : argv) {
            if (a.indexOf('\0') >= 0) {
                throw file.error(run.getValueNode(), key + ".run", "an argument of " + key + ".run contains a NUL character,"
                        + " which cannot be passed to a program");
            }
        }
        boolean writes = keys.containsKey("writes") && file.bool(keys.get("writes").getValueNode(), key + ".writes");
        SandboxDecl sandbox = keys.containsKey("sandbox")
                ? DeclNodes.read(file, keys.get("sandbox").getValueNode(), key + ".sandbox", Target.layer(dir, name))
                : SandboxDecl.empty(Target.layer(dir, name));
        return new Target(dir, name, argv, writes, sandbox, file.position(tuple.getKeyNode()));
    }

    /** Relative, inside the workspace, normalized: {@code ./api/} is {@code api}. */
    private static String dir(YamlFile file, Node node, String key) {
        String raw = file.scalar(node, key);
        if (raw.isEmpty() || raw.indexOf('\0') >= 0) {
            throw file.error(node, key, "project dir must name a directory, not " + Echo.quoted(raw));
        }
        if (raw.startsWith("/") || raw.startsWith("~") || raw.matches("^[A-Za-z]:.*")) {
            throw file.error(node, key, "project dir " + Echo.quoted(raw) + " is not relative: a project is a directory"
                    + " inside the workspace, written relative to magus.yaml");
        }
        List<String> parts = new ArrayList<>();
        for (String c : raw.replace('\\', '/').split("/")) {
            if (c.isEmpty() || c.equals(".")) {
                continue;
            }
            if (c.equals("..")) {
                throw file.error(node, key, "project dir " + Echo.quoted(raw) + " leaves the workspace ('..'): a project is a"
                        + " directory inside it");
            }
            parts.add(c);
        }
        return parts.isEmpty() ? "." : String.join("/", parts);
    }
}
