package dev.magus.policy.git;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link GitConfigParser} against the git on this machine: {@code git config --file F --list} is the reference. */
class GitConfigAgainstGitTest {

    private static final List<String> CONFIGS = List.of(
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
            "[remote \"origin\"]\n\turl = git@example.invalid:a/b.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
            "[core] hooksPath = .githooks\n",
            "[Core]\n\tHooksPath=  \"spaced  value \"  # comment\n",
            "[alias]\n\tx = \"!sh -c \\\"echo hi\\\"\"\n",
            "[a.B]\n\tc = d\n",
            "[section \"Sub \\\"q\\\" \\\\ x\"]\n\tk = v ; c\n",
            "[include]\n\tpath = ../.gitconfig\n[includeIf \"gitdir:~/w/\"]\n\tpath = ~/w.inc\n",
            "[x]\n\tflag\n\tother = one\\\n two\n",
            "# only a comment\n; another\n",
            "[x]\n\tv = a\\tb\\nc\n",
            "\uFEFF[bom]\n\tk = v\n",
            "[x]\n\tv = tail   \n\tw = \"\"\n",
            "[x]k=inline\n",
            "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n");

    @TempDir
    Path dir;

    @Test
    void everyEntryReadsAsTheGitOnThisMachineListsIt() throws Exception {
        Assumptions.assumeTrue(hasGit(), "git is not installed here: the reference parser is missing");
        for (String text : CONFIGS) {
            Path f = dir.resolve("c");
            Files.writeString(f, text, StandardCharsets.UTF_8);
            List<String> mine = new ArrayList<>();
            for (ConfigEntry e : GitConfigParser.parse(GitConfigParser.text(Files.readAllBytes(f))).entries()) {
                String key = e.key().dotted();
                mine.add(e.value().map(v -> key + "=" + GitConfigParser.value(v)).orElse(key));
            }
            assertThat(mine).as(text).isEqualTo(gitList(f));
        }
    }

    @Test
    void aLineGitRefusesEndsWhatIsReadableThere() throws Exception {
        byte[] bad = "[core]\n\tbare = false\n\t= nokey\n[x]\n\ty = 1\n".getBytes(StandardCharsets.UTF_8);
        assertThat(GitConfigParser.readable(bad).entries()).extracting(e -> e.key().dotted()).containsExactly("core.bare");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> GitConfigParser.parse(GitConfigParser.text(bad)))
                .isInstanceOf(GitConfigParser.Malformed.class);
    }

    @Test
    void theLastValueWinsAndABareKeyIsTrue() {
        ParsedGitConfig p = GitConfigParser.readable("[x]\n\tb = 1\n\tb = one\\\n two\n\tc\n".getBytes(StandardCharsets.UTF_8));
        assertThat(p.last(ConfigKey.of("x", null, "b"))).contains("one two");
        assertThat(p.last(ConfigKey.of("x", null, "c"))).contains("true");
    }

    static boolean hasGit() {
        try {
            return new ProcessBuilder("git", "--version").redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private static List<String> gitList(Path f) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("git", "config", "--file", f.toString(), "--list", "-z").start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor()).isZero();
        List<String> entries = new ArrayList<>();
        for (String item : new String(out, StandardCharsets.UTF_8).split("\0")) {
            if (!item.isEmpty()) {
                // -z: the key, a newline, the value; a bare boolean has no newline.
                int nl = item.indexOf('\n');
                entries.add(nl < 0 ? item : item.substring(0, nl) + "=" + item.substring(nl + 1));
            }
        }
        return entries;
    }
}
