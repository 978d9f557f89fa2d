package dev.magus.env.child;

import java.util.LinkedHashMap;
import java.util.Map;

/** A realistic developer environment: baseline, credentials, tool settings and noise. */
final class HostEnvironments {
    private HostEnvironments() {
    }

    static final Map<String, String> BASELINE = Map.ofEntries(
            Map.entry("HOME", "/home/dev"),
            Map.entry("USER", "dev"),
            Map.entry("LOGNAME", "dev"),
            Map.entry("PATH", "/usr/local/bin:/usr/bin:/bin"),
            Map.entry("LANG", "en_US.UTF-8"),
            Map.entry("LC_ALL", "en_US.UTF-8"),
            Map.entry("LC_CTYPE", "en_US.UTF-8"),
            Map.entry("TZ", "UTC"),
            Map.entry("TERM", "xterm-256color"),
            Map.entry("SHELL", "/bin/bash"),
            Map.entry("PWD", "/home/dev/ws"),
            Map.entry("XDG_RUNTIME_DIR", "/run/user/1000"),
            Map.entry("XDG_CONFIG_HOME", "/home/dev/.config"));

    static final Map<String, String> SECRETS = Map.ofEntries(
            Map.entry("AWS_ACCESS_KEY_ID", "AKIAFAKEFAKEFAKE"),
            Map.entry("AWS_SECRET_ACCESS_KEY", "fake-secret-FAKEFAKEFAKEFAKE"),
            Map.entry("AWS_SESSION_TOKEN", "fake-session-FAKEFAKE"),
            Map.entry("AWS_PROFILE", "fake-profile"),
            Map.entry("GITHUB_TOKEN", "ghp_FAKEFAKEFAKEFAKEFAKE"),
            Map.entry("VAULT_TOKEN", "hvs.FAKEFAKEFAKE"),
            Map.entry("VAULT_ADDR", "https://vault.example.invalid"),
            Map.entry("NPM_TOKEN", "npm_FAKEFAKEFAKEFAKE"),
            Map.entry("ANTHROPIC_API_KEY", "sk-ant-FAKEFAKEFAKE"),
            Map.entry("SSH_AUTH_SOCK", "/tmp/ssh-FAKE/agent.1"),
            Map.entry("GOOGLE_APPLICATION_CREDENTIALS", "/home/dev/.config/gcloud/fake.json"));

    static final Map<String, String> DECLARED = Map.of(
            "TF_PLUGIN_CACHE_DIR", "/home/dev/.terraform.d/plugin-cache",
            "MISE_DATA_DIR", "/home/dev/.local/share/mise",
            "MISE_SAFE", "1",
            "GOFLAGS", "-mod=mod");

    /** 200 variables: the three groups above, TMPDIR, and filler up to the count. */
    static Map<String, String> twoHundred() {
        Map<String, String> env = new LinkedHashMap<>();
        env.putAll(BASELINE);
        env.putAll(SECRETS);
        env.putAll(DECLARED);
        env.put("TMPDIR", "/tmp");
        int i = 0;
        while (env.size() < 200) {
            env.put(String.format("TOOL_SETTING_%03d", i), "value-" + i);
            i++;
        }
        return env;
    }
}
