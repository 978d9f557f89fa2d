package dev.magus.bench.env;

import dev.magus.env.Allowlist;
import dev.magus.env.platform.Platform;
import dev.magus.env.scrub.Scrubber;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A developer's or CI runner's environment of a given size: the baseline, a few variables the
 * passthrough wants, credentials (fake, and they must be dropped), then the filler a CI system
 * and a shell profile add.
 */
public final class HostEnvironment {
    private HostEnvironment() {
    }

    /** The ten passthrough patterns of the benchmark: exact names and {@code PREFIX_*} patterns. */
    public static final List<String> PASSTHROUGH = List.of(
            "GOFLAGS", "GOPATH", "GOCACHE", "GOEXPERIMENT", "CARGO_HOME",
            "RUSTUP_HOME", "TF_PLUGIN_CACHE_DIR", "MISE_*", "ASDF_*", "NPM_CONFIG_*");

    private static final String[][] FIXED = {
            {"HOME", "/home/dev"}, {"USER", "dev"}, {"LOGNAME", "dev"}, {"PATH", "/usr/local/bin:/usr/bin:/bin"},
            {"LANG", "C.UTF-8"}, {"LC_ALL", "C.UTF-8"}, {"TERM", "xterm-256color"}, {"SHELL", "/bin/bash"},
            {"PWD", "/home/dev/ws"}, {"XDG_RUNTIME_DIR", "/run/user/1000"},
            {"GOFLAGS", "-mod=mod"}, {"MISE_DATA_DIR", "/home/dev/.local/share/mise"},
            {"NPM_CONFIG_CACHE", "/home/dev/.npm"},
            {"AWS_ACCESS_KEY_ID", "AKIAFAKEFAKEFAKE"}, {"AWS_SECRET_ACCESS_KEY", "fake/fake/fake/FAKE"},
            {"GITHUB_TOKEN", "ghp_FAKEFAKEFAKEFAKE"}, {"NPM_TOKEN", "npm_FAKEFAKEFAKE"},
            {"ANTHROPIC_API_KEY", "sk-ant-FAKE"}, {"VAULT_TOKEN", "hvs.FAKE"}, {"SSH_AUTH_SOCK", "/tmp/ssh-FAKE/agent.1"},
    };

    /** The benchmarks' scrubber: Linux, the {@link #PASSTHROUGH} patterns, allowlist source {@code bench}. */
    public static Scrubber scrubber() {
        return Scrubber.of(Platform.LINUX, Allowlist.parse(PASSTHROUGH, "bench"));
    }

    public static Map<String, String> of(int size) {
        Map<String, String> env = new LinkedHashMap<>();
        for (int i = 0; i < FIXED.length && env.size() < size; i++) {
            env.put(FIXED[i][0], FIXED[i][1]);
        }
        String[] filler = {"CI_JOB_", "RUNNER_", "GITHUB_", "npm_config_", "JAVA_OPT_", "MISE_", "BUILD_"};
        for (int i = 0; env.size() < size; i++) {
            env.put(filler[i % filler.length] + "VAR" + i, "value-" + i + "-" + "x".repeat(i % 40));
        }
        return Map.copyOf(env);
    }
}
