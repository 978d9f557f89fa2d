package dev.magus.workspace.audit.gitconfig;

import dev.magus.policy.git.GitConfigParser;
import dev.magus.policy.git.ConfigKey;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lists of {@link GitConfigKeys} against the installed git: its own list of keys, and its own reading of them. */
class GitConfigKeysTest {
    @TempDir
    Path dir;

    /** A key whose last part says it names a program, a hook or a file git reads as config. */
    static final Pattern RUNS = Pattern.compile(
            ".*(command|cmd|program|editor|pager|hook|hookspath|askpass|proxy|textconv|driver|smudge|process|helper"
                    + "|fsmonitor|uploadpack|receivepack|templatedir)|path");

    /** Keys whose name says so but which hold no program: a yes/no, or a hint's switch. */
    static final Set<String> NOT_PROGRAMS = Set.of("color.pager", "advice.waitingforeditor", "advice.ignoredhook",
            "core.fsmonitorhookversion", "column.pager");

    private String git(String... args) throws IOException, InterruptedException {
        return dev.magus.workspace.audit.RealGit.run(dir, dir, args);
    }

    /** {@code diff.<driver>.command} as a key with subsection {@code x}; empty when the key's own name is a placeholder. */
    private static Optional<ConfigKey> key(String listed) {
        String l = listed.trim();
        if (l.isEmpty() || l.endsWith(">") || l.endsWith("*") || l.contains(" ")) {
            return Optional.empty();
        }
        int first = l.indexOf('.');
        int last = l.lastIndexOf('.');
        if (first < 0) {
            return Optional.empty();
        }
        String section = l.substring(0, first);
        String name = l.substring(last + 1);
        String sub = first == last ? null : l.substring(first + 1, last).replaceAll("<[^>]*>", "x");
        return Optional.of(ConfigKey.of(section, sub, name));
    }

    @Test
    void everyKeyOfTheInstalledGitThatNamesAProgramIsPutBack() throws Exception {
        String listed = git("help", "--config");
        List<String> harmlessButRuns = new ArrayList<>();
        int seen = 0;
        for (String line : listed.split("\n")) {
            Optional<ConfigKey> k = key(line);
            if (k.isEmpty()) {
                continue;
            }
            seen++;
            ConfigKey key = k.get();
            boolean runs = RUNS.matcher(key.name()).matches() || key.section().equals("filter")
                    || key.section().equals("credential") || key.section().equals("include")
                    || key.section().equals("includeif");
            String dotted = key.section() + "." + key.name();
            if (runs && !NOT_PROGRAMS.contains(dotted) && GitConfigKeys.classify(key, Optional.of("prog"),
                    GitConfigKeys.Context.NONE) == GitConfigKeys.Verdict.HARMLESS) {
                harmlessButRuns.add(line.trim());
            }
        }
        assertThat(seen).as("git help --config listed keys").isGreaterThan(300);
        assertThat(harmlessButRuns).as("keys that name a program but are on the harmless list").isEmpty();
    }

    @Test
    void everyPatternOnTheListsNamesASectionGitKnows() throws Exception {
        String listed = git("help", "--config").toLowerCase(Locale.ROOT);
        Set<String> sections = new java.util.HashSet<>();
        for (String line : listed.split("\n")) {
            int dot = line.trim().indexOf('.');
            if (dot > 0) {
                sections.add(line.trim().substring(0, dot));
            }
        }
        List<String> all = new ArrayList<>(GitConfigKeys.DANGEROUS);
        all.addAll(GitConfigKeys.HARMLESS);
        // Sections of other tools or older gits that a repository's config may still hold.
        Set<String> foreign = Set.of("lfs", "svn-remote", "credentialcache", "credentialstore", "author", "committer",
                "feature", "bundle", "trailer", "safe", "fsmonitor", "transfer", "uploadarchive", "gitcvs", "svn");
        for (String p : all) {
            String section = p.substring(0, p.indexOf('.'));
            if (!foreign.contains(section)) {
                assertThat(sections).as(p).contains(section);
            }
        }
    }

    @Test
    void eachDangerousKeyReadsAsGitReadsItAndIsPutBack() throws Exception {
        Path file = dir.resolve("config");
        Files.writeString(file, "");
        List<String> written = new ArrayList<>();
        for (String p : GitConfigKeys.DANGEROUS) {
            String k = p.replace(".**", ".x.k").replace(".*.", ".Sub.").replace(".*", ".k");
            git("config", "-f", file.toString(), "--add", k, "sh -c \"evil; x\" # \\ tail");
            written.add(k);
        }
        String text = GitConfigParser.text(Files.readAllBytes(file));
        Map<ConfigKey, List<Optional<String>>> ours = GitConfigParser.parse(text).values();
        for (String k : written) {
            String got = git("config", "-f", file.toString(), "--get", k).stripTrailing();
            int first = k.indexOf('.');
            int last = k.lastIndexOf('.');
            ConfigKey key = ConfigKey.of(k.substring(0, first), first == last ? null : k.substring(first + 1, last),
                    k.substring(last + 1));
            assertThat(ours.get(key)).as(k).containsExactly(Optional.of(got));
            assertThat(GitConfigKeys.classify(key, Optional.of(got), GitConfigKeys.Context.NONE)).as(k)
                    .isEqualTo(GitConfigKeys.Verdict.DANGEROUS);
        }
        // Everything git lists, ours lists: by name, in order.
        List<String> gitList = List.of(git("config", "-f", file.toString(), "--name-only", "--list").split("\n"));
        List<String> ourList = GitConfigParser.parse(text).entries().stream().map(e -> e.key().dotted()).toList();
        assertThat(ourList).containsExactlyElementsOf(gitList);
        ConfigJudge.Judged j = (ConfigJudge.Judged) ConfigJudge.judge(Optional.of(""), text, GitConfigKeys.Context.NONE);
        assertThat(j.kept()).isEmpty();
        assertThat(GitConfigParser.parse(j.text()).entries()).isEmpty();
    }

    @Test
    void valuesWithQuotesEscapesAndCommentsReadAsGitReadsThem() throws Exception {
        Path file = dir.resolve("tricky");
        Files.writeString(file, "[a \"S\\\"ub\"]\n\tk1 = \"x ; y\" # c\n\tk2 = one \\\n two\n\tk3 = \\ttab \\\\ \\\"\n"
                + "[b.C] k4 = \"  pad  \"\n[c]\n\tk5\n");
        Map<ConfigKey, List<Optional<String>>> ours = GitConfigParser.parse(
                GitConfigParser.text(Files.readAllBytes(file))).values();
        for (Map.Entry<ConfigKey, List<Optional<String>>> e : ours.entrySet()) {
            String name = e.getKey().dotted();
            String got = git("config", "-f", file.toString(), "--get", name);
            String value = e.getValue().get(0).orElse("");
            assertThat(got).as(name).isEqualTo(value + "\n");
        }
        assertThat(ours).hasSize(5);
    }

    @Test
    void aRemoteNamingARepositoryInsideGitsDataIsPutBack() {
        GitConfigKeys.Context none = GitConfigKeys.Context.NONE;
        for (String v : List.of("/ws/.git/objects/evil.git", "file:///ws/.git/refs/x", ".git/logs/y", "../.GIT/LFS/z",
                "ssh://localhost/ws/.git/modules/lib/objects/evil", "C:\\ws\\.git\\objects\\e")) {
            assertThat(GitConfigKeys.classify(ConfigKey.of("remote", "origin", "url"), Optional.of(v), none)).as(v)
                    .isEqualTo(GitConfigKeys.Verdict.DANGEROUS);
            assertThat(GitConfigKeys.classify(ConfigKey.of("branch", "main", "remote"), Optional.of(v), none)).as(v)
                    .isEqualTo(GitConfigKeys.Verdict.DANGEROUS);
        }
        for (String v : List.of("/ws/remote.git", "https://example.invalid/x.git", "/ws/.git", "../.git/modules/lib",
                "/ws/objects/refs", "git@example.invalid:x/refs.git")) {
            assertThat(GitConfigKeys.classify(ConfigKey.of("remote", "origin", "pushurl"), Optional.of(v), none)).as(v)
                    .isEqualTo(GitConfigKeys.Verdict.HARMLESS);
        }
        assertThat(GitConfigKeys.classify(ConfigKey.of("remote", "origin", "fetch"),
                Optional.of("+refs/heads/*:refs/remotes/origin/*"), none)).isEqualTo(GitConfigKeys.Verdict.HARMLESS);
    }
}
