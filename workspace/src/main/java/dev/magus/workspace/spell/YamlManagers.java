package dev.magus.workspace.spell;

import dev.magus.env.Allowlist;
import dev.magus.env.shim.ShimManager;
import dev.magus.events.Echo;
import dev.magus.events.SandboxException;
import dev.magus.workspace.yaml.YamlFile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * A YAML spell's {@code versionManagers} (docs/spells.md): the managers its toolchain is driven
 * by, so that MGS2006 looks for their shims as for the built-in spells'. Each entry has
 * {@code name}, {@code shims} (a PATH entry ending so is its shim dir; ending in {@code /}, any
 * entry below it), optional {@code root} (the variable naming its directory) and
 * {@code rootShims} ({@code shims} when absent), and {@code selectors} (the variables it reads).
 *
 * <p>Refused when the spell loads (MGS2004 naming the spell, file, line and column): a manager
 * that could never be recognised (neither {@code shims} nor {@code root}), a shim dir no PATH
 * entry can end with, a selector that is not a name or {@code PREFIX_*} pattern or that the
 * spell does not pass through (binding the spell would not keep it), and a built-in's name.
 */
final class YamlManagers {
    static final String KEY = "versionManagers";
    private static final Set<String> KEYS = Set.of("name", "shims", "root", "rootShims", "selectors");
    private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private YamlManagers() {
    }

    /**
     * @param spell       the spell's name: the hint names it as the way to keep the selectors
     * @param passthrough the spell's own passthrough, which must keep every exact selector
     */
    static List<ShimManager> read(YamlFile file, Node node, String spell, Allowlist passthrough) {
        if (YamlFile.isNull(node)) {
            return List.of();
        }
        SequenceNode list = file.sequence(node, KEY, KEY + " must be a list of {name, shims, root, rootShims, selectors}");
        List<ShimManager> out = new ArrayList<>();
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < list.getValue().size(); i++) {
            String at = KEY + "[" + i + "]";
            Node entry = list.getValue().get(i);
            ShimManager m = manager(file, entry, at, spell, passthrough);
            String before = seen.putIfAbsent(m.name(), at);
            if (before != null) {
                throw file.error(entry, at + ".name", "version manager " + m.name() + " is declared twice (first at " + before + ")");
            }
            out.add(m);
        }
        return List.copyOf(out);
    }

    private static ShimManager manager(YamlFile file, Node node, String at, String spell, Allowlist passthrough) {
        MappingNode map = file.mapping(node, at, at + " must be a mapping (name, shims, root, rootShims, selectors)");
        Map<String, NodeTuple> keys = file.keys(map, at, KEYS);
        NodeTuple nameTuple = keys.get("name");
        if (nameTuple == null) {
            throw file.error(node, at + ".name", at + " needs a name: the version manager's (rbenv)");
        }
        Node nameNode = nameTuple.getValueNode();
        String name = file.scalar(nameNode, at + ".name");
        if (!Spell.isName(name)) {
            throw file.error(nameNode, at + ".name", "version manager name " + Echo.quoted(name) + " is not one: lower-case"
                    + " letters, digits, '-' and '_'");
        }
        for (ShimManager known : ShimManager.KNOWN) {
            if (known.name().equals(name)) {
                throw file.error(nameNode, at + ".name", "version manager " + name + " is already known"
                        + known.spell().map(s -> " (by the built-in spell " + s + ")").orElse("")
                        + "; a spell cannot redefine it: give yours another name");
            }
        }
        List<String> markers = new ArrayList<>();
        NodeTuple shimsTuple = keys.get("shims");
        if (shimsTuple != null && !YamlFile.isNull(shimsTuple.getValueNode())) {
            SequenceNode seq = file.sequence(shimsTuple.getValueNode(), at + ".shims", at + ".shims must be a list of shim"
                    + " directories (.rbenv/shims)");
            for (int i = 0; i < seq.getValue().size(); i++) {
                Node v = seq.getValue().get(i);
                String key = at + ".shims[" + i + "]";
                String marker = marker(file, v, key, file.scalar(v, key));
                for (String system : SYSTEM_DIRS) {
                    if (system.endsWith(marker)) {
                        throw file.error(v, key, "shim directory " + Echo.quoted(marker.substring(1))
                                + " would match the system directory " + system + ", so every PATH would look like "
                                + name + "'s shims; give the shim dir's own end (.rbenv/shims)");
                    }
                }
                markers.add(marker);
            }
        }
        Optional<String> root = Optional.empty();
        NodeTuple rootTuple = keys.get("root");
        if (rootTuple != null) {
            Node v = rootTuple.getValueNode();
            String variable = file.scalar(v, at + ".root");
            if (!VARIABLE.matcher(variable).matches()) {
                throw file.error(v, at + ".root", at + ".root names the variable holding the manager's directory (RBENV_ROOT),"
                        + " not " + Echo.quoted(variable));
            }
            root = Optional.of(variable);
        }
        String underRoot = "shims";
        NodeTuple underTuple = keys.get("rootShims");
        if (underTuple != null) {
            Node v = underTuple.getValueNode();
            if (root.isEmpty()) {
                throw file.error(v, at + ".rootShims", at + ".rootShims is where the shims are under root, and " + at
                        + " has no root");
            }
            String under = file.scalar(v, at + ".rootShims");
            String marker = marker(file, v, at + ".rootShims", under);
            underRoot = marker.substring(1);
        }
        if (markers.isEmpty() && root.isEmpty()) {
            throw file.error(node, at + ".shims", "version manager " + name + " could never be recognised on PATH: give its shim"
                    + " directory (shims: [.rbenv/shims]) or the variable naming its directory (root: RBENV_ROOT)");
        }
        NodeTuple selTuple = keys.get("selectors");
        if (selTuple == null || YamlFile.isNull(selTuple.getValueNode())) {
            throw file.error(selTuple == null ? node : selTuple.getValueNode(), at + ".selectors", "version manager " + name
                    + " needs selectors: the variables it reads to pick a version (RBENV_VERSION)");
        }
        SequenceNode seq = file.sequence(selTuple.getValueNode(), at + ".selectors", at + ".selectors must be a list of variable"
                + " names and PREFIX_* patterns");
        List<String> selectors = new ArrayList<>();
        for (int i = 0; i < seq.getValue().size(); i++) {
            Node v = seq.getValue().get(i);
            String key = at + ".selectors[" + i + "]";
            String s = file.scalar(v, key);
            try {
                Allowlist.parse(List.of(s), key);
            } catch (SandboxException e) {
                throw file.error(v, key, "selector " + Echo.quoted(s) + " is not a variable name or a PREFIX_* pattern of at"
                        + " least three characters (RBENV_VERSION, RBENV_*)");
            }
            if (looksLikeACredential(s)) {
                throw file.error(v, key, "selector " + Echo.quoted(s) + " names or matches credential-"
                        + "looking variables (tokens, secrets, passwords, keys, cloud logins); a version manager's selector"
                        + " picks a version, and a hint to pass it through would hand the secret to the run");
            }
            if (s.endsWith("*") && !passthrough.entries().contains(s)) {
                throw file.error(v, key, "version manager " + name + " reads " + s + ", which spell " + spell
                        + " does not pass through as such: a pattern selector must be in the spell's own"
                        + " sandbox.env.passthrough");
            }
            if (!s.endsWith("*") && !passthrough.permits(s)) {
                throw file.error(v, key, "version manager " + name + " reads " + s + ", which spell " + spell
                        + " does not pass through: binding the spell would not keep it; add it to sandbox.env.passthrough");
            }
            selectors.add(s);
        }
        if (selectors.isEmpty()) {
            throw file.error(seq, at + ".selectors", "version manager " + name
                    + " needs selectors: the variables it reads to pick a version (RBENV_VERSION)");
        }
        return new ShimManager(name, markers, root, underRoot, selectors, List.of(), Optional.of(spell));
    }

    /** Directories a shim marker must never match the end of: a marker {@code bin} would match them all. */
    static final List<String> SYSTEM_DIRS = List.of("/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/sbin",
            "/usr/local/sbin", "/opt/homebrew/bin", "/snap/bin");

    /** Words of credential variables, and prefixes of well-known ones (AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, ...). */
    private static final java.util.regex.Pattern CREDENTIAL_WORD = java.util.regex.Pattern.compile(
            "(^|_)(TOKEN|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PWD|CREDENTIAL|CREDENTIALS|KEY|APIKEY|AUTH|SESSION|PRIVATE|COOKIE"
                    + "|SOCK)(_|$|\\*)");
    private static final List<String> CREDENTIAL_PREFIXES = List.of("AWS_", "AZURE_", "ARM_", "GOOGLE_", "GCP_", "GCLOUD_",
            "CLOUDSDK_", "GITHUB_", "GH_", "GITLAB_", "GL_", "NPM_", "NODE_AUTH", "DOCKER_", "VAULT_", "OPENAI_", "ANTHROPIC_",
            "HF_", "HUGGING", "SSH_", "GPG_", "GNUPG", "KUBE", "DIGITALOCEAN_", "HEROKU_", "TWINE_", "CARGO_REGISTR", "PYPI_",
            "SLACK_", "STRIPE_", "DATABASE_URL", "PGPASS", "MYSQL_PWD");

    /**
     * Whether selector {@code s} (a name, or a PREFIX_* pattern) names or could match a variable
     * that looks like a credential: a credential word in it, or a well-known credential prefix
     * it shares (a pattern whose prefix is a start of one matches it too).
     */
    static boolean looksLikeACredential(String s) {
        String u = s.toUpperCase(java.util.Locale.ROOT);
        if (CREDENTIAL_WORD.matcher(u).find()) {
            return true;
        }
        String stem = u.endsWith("*") ? u.substring(0, u.length() - 1) : u;
        for (String p : CREDENTIAL_PREFIXES) {
            if (stem.startsWith(p) || (u.endsWith("*") && p.startsWith(stem))) {
                return true;
            }
        }
        return false;
    }

    /**
     * A shim dir as the end of a PATH entry, always starting with '/' so that {@code shims}
     * cannot match {@code /opt/myshims}.
     */
    private static String marker(YamlFile file, Node v, String key, String text) {
        String why = null;
        if (text.isEmpty() || text.chars().allMatch(c -> c == '/')) {
            why = "is empty: every PATH entry would be its shim dir";
        } else if (text.indexOf(':') >= 0 || text.indexOf(';') >= 0 || text.indexOf('\0') >= 0) {
            why = "holds a PATH separator (':' or ';') or a NUL, so no PATH entry can end with it";
        } else if (text.startsWith("~") || text.indexOf('$') >= 0) {
            why = "names home or a variable, which a shim dir here does not: write its end ("
                    + ".rbenv/shims), or name the variable with root";
        } else {
            for (String part : text.split("/", -1)) {
                if (part.equals(".") || part.equals("..")) {
                    why = "holds '.' or '..', which no PATH entry of a manager does";
                    break;
                }
            }
        }
        if (why != null) {
            throw file.error(v, key, "shim directory " + Echo.quoted(text) + " " + why);
        }
        return text.startsWith("/") ? text : "/" + text;
    }
}
