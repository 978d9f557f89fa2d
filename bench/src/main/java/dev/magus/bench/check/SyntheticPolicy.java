package dev.magus.bench.check;

import dev.magus.env.Allowlist;
import dev.magus.policy.Policy;
import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.fs.Ruleset;
import dev.magus.events.Mode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A policy of exactly {@code n} rules around a real workspace, for measuring how the check
 * scales with the ruleset. A few rules are the core's ({@code /usr}, {@code /etc}, the
 * workspace); the rest are spread over four places so that the nodes on the checked paths get
 * wide: siblings at the filesystem root, tool caches in the home directory, siblings in the
 * workspace, and siblings deep inside the workspace next to the file that is checked.
 */
public final class SyntheticPolicy {
    private SyntheticPolicy() {
    }

    public static List<Rule> rules(int n, Path workspace, Path home) {
        List<Rule> rules = new ArrayList<>(n);
        rules.add(new Rule(Path.of("/usr"), AccessMode.RX, "core:/usr"));
        rules.add(new Rule(Path.of("/etc"), AccessMode.R, "core:/etc"));
        rules.add(new Rule(workspace, AccessMode.RWX, "core:workspace"));
        AccessMode[] modes = {AccessMode.R, AccessMode.RW, AccessMode.RX, AccessMode.RWX};
        for (int i = rules.size(); i < n; i++) {
            Path p = switch (i % 4) {
                case 0 -> Path.of("/opt/tool" + i);
                case 1 -> home.resolve(".cache/tool" + i);
                case 2 -> workspace.resolve("sub" + i);
                default -> workspace.resolve("src/main/java/dev/gen" + i);
            };
            rules.add(new Rule(p, modes[i % modes.length], "bench:" + i));
        }
        return rules;
    }

    public static Policy policy(int n, Path workspace, Path home) {
        return new Policy(Mode.BEST_EFFORT, workspace, home, Ruleset.of(rules(n, workspace, home)), Allowlist.EMPTY,
                ControlFiles.of(workspace, List.of()), List.of());
    }
}
