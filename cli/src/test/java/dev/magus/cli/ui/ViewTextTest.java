package dev.magus.cli.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Mode;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jline.utils.AttributedString;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

class ViewTextTest {
    final ViewReducer reducer = new ViewReducer(2);

    static List<String> text(List<AttributedString> lines) {
        return lines.stream().map(AttributedString::toString).toList();
    }

    ViewState midRun() {
        ViewState s = reducer.initial(List.of("sh", "-c", "cat ~/.ssh/id_rsa; echo $i"), ViewReducerTest.T0);
        s = reducer.apply(s, new RunEvent.Started("r", ViewReducerTest.T0, s.command(), Mode.REQUIRED, 4242));
        s = reducer.apply(s, ViewReducerTest.notice(Code.MGS2003));
        s = reducer.apply(s, new RunEvent.Output("r", ViewReducerTest.T0, RunEvent.Stream.STDOUT, "1"));
        s = reducer.apply(s, ViewReducerTest.denial(Code.MGS2001, Operation.READ, Layer.KERNEL, "/h/.ssh/id_rsa",
                ViewReducerTest.yaml("~/.ssh", "ro")));
        s = reducer.apply(s, ViewReducerTest.denial(Code.MGS2002, Operation.WRITE, Layer.BINDING, "/h/.bashrc",
                ViewReducerTest.yaml("~/.bashrc", "rw")));
        return reducer.tick(s, ViewReducerTest.T0.plusMillis(2460));
    }

    @Test
    void statusShowsCommandClockCountersAndEachRecentDenialWithItsYamlOnOneLine() {
        List<String> lines = text(ViewText.status(midRun()));

        assertThat(lines.get(0)).contains("running 0:02.4", "mode required", "pid 4242", "$ sh -c 'cat ~/.ssh/id_rsa; echo $i'");
        assertThat(lines.get(1)).contains("MGS2001 x1", "MGS2002 x1", "MGS2003 x1", "denials 2", "output 1 lines");
        assertThat(lines).hasSize(4);
        assertThat(lines.get(2)).contains("write", "[binding]", "/h/.bashrc", "MGS2002",
                "allow: {sandbox: {allow: [{path: ~/.bashrc, mode: rw}]}}");
        assertThat(lines.get(3)).contains("read", "[kernel]", "/h/.ssh/id_rsa", "MGS2001",
                "allow: {sandbox: {allow: [{path: ~/.ssh, mode: ro}]}}");
    }

    @Test
    void statusBeforeAnythingHappened() {
        List<String> lines = text(ViewText.status(reducer.initial(List.of("make"), ViewReducerTest.T0)));
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).contains("running 0:00.0", "$ make").doesNotContain("pid");
        assertThat(lines.get(1)).contains("none yet", "denials 0");
    }

    @Test
    void summaryGivesStatusDurationCountsAndOneYamlBlockForTheLatestDenials() {
        ViewState s = reducer.apply(midRun(), ViewReducerTest.denial(Code.MGS2001, Operation.READ, Layer.KERNEL,
                "/h/.npmrc", ViewReducerTest.yaml("~/.npmrc", "ro")));
        s = reducer.apply(s, new RunEvent.Exited("r", ViewReducerTest.T0, 0, 0, Duration.ofMillis(3210)));

        List<String> lines = text(ViewText.summary(s));

        assertThat(lines.get(0)).isEqualTo(
                "magus: exited, status 0 after 0:03.2; 1 output lines, 4 diagnostics: MGS2001 x2, MGS2002 x1, MGS2003 x1");
        assertThat(lines.get(1)).isEqualTo("magus: 3 accesses denied, 3 distinct (the latest 2 below, 1 more above)");
        assertThat(lines.subList(2, lines.size())).containsExactly(
                "  read /h/.npmrc [kernel] MGS2001",
                "  write /h/.bashrc [binding] MGS2002",
                "magus: to allow them, add to magus.yaml:",
                "    sandbox:",
                "      allow:",
                "        - path: ~/.npmrc",
                "          mode: ro",
                "        - path: ~/.bashrc",
                "          mode: rw");
    }

    @Test
    void theSummarysBlockNamesEachEntryOnceAndKeepsOtherBlocksAndComments() {
        String merged = YamlHint.merged(List.of(
                "sandbox:\n  allow:\n    - path: ~/.npmrc\n      mode: ro\n",
                "sandbox:\n  allow:\n    # widens ~/x ro (workspace) to rw\n    - path: ~/x\n      mode: rw\n",
                "sandbox:\n  network:\n    allow: [\"repo.example\"]\n",
                "sandbox:\n  network:\n    allow: [\"other.example\", \"repo.example\"]\n    ports: [5432]\n",
                "sandbox:\n  allow:\n    - path: ~/.npmrc\n      mode: ro\n"));
        assertThat(merged).isEqualTo("sandbox:\n  allow:\n    - path: ~/.npmrc\n      mode: ro\n"
                + "    # widens ~/x ro (workspace) to rw\n    - path: ~/x\n      mode: rw\n"
                + "  network:\n    allow:\n      - repo.example\n      - other.example\n    ports:\n      - 5432\n");
        Object pasted = new org.yaml.snakeyaml.Yaml().load(merged);
        assertThat(pasted).as("one document that pastes into magus.yaml").isInstanceOf(java.util.Map.class);
    }

    @Test
    void summaryOfASignalledAndOfARefusedRun() {
        ViewState killed = reducer.apply(midRun(), new RunEvent.Exited("r", ViewReducerTest.T0, 130, 2, Duration.ofSeconds(61)));
        assertThat(text(ViewText.summary(killed)).get(0)).startsWith("magus: ended by signal 2, status 130 after 1:01.0");

        ViewState refused = reducer.initial(List.of("make"), ViewReducerTest.T0);
        refused = reducer.apply(refused, ViewReducerTest.notice(Code.MGS2012));
        refused = reducer.apply(refused, new RunEvent.Exited("r", ViewReducerTest.T0, 125, 0, Duration.ofMillis(15)));
        assertThat(text(ViewText.summary(refused))).containsExactly(
                "magus: did not start, status 125 after 0:00.0; 0 output lines, 1 diagnostics: MGS2012 x1");
    }

    @Test
    void clockShowsTenthsThenWholeSecondsPastAnHour() {
        assertThat(ViewText.clock(Duration.ZERO)).isEqualTo("0:00.0");
        assertThat(ViewText.clock(Duration.ofMillis(59_999))).isEqualTo("0:59.9");
        assertThat(ViewText.clock(Duration.ofMinutes(12).plusMillis(300))).isEqualTo("12:00.3");
        assertThat(ViewText.clock(Duration.ofSeconds(3723))).isEqualTo("1:02:03");
    }

    @Test
    void commandLineQuotesWhatAShellWouldSplitAndHidesControlCharacters() {
        assertThat(ViewText.commandLine(List.of("npm", "install", "--prefix=./x"))).isEqualTo("npm install --prefix=./x");
        assertThat(ViewText.commandLine(List.of("sh", "-c", "echo 'hi' there"))).isEqualTo("sh -c 'echo '\\''hi'\\'' there'");
        assertThat(ViewText.commandLine(List.of("sh", "-c", "a\nb"))).isEqualTo("sh -c 'a?b'");
    }

    @Test
    void yamlHintOnOneLineIsTheSameDocument() {
        String block = ViewReducerTest.yaml("\"/w/with space\"", "rw");
        String line = YamlHint.oneLine(block);
        Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));

        assertThat(line).doesNotContain("\n");
        assertThat((Map<?, ?>) yaml.load(line)).isEqualTo(yaml.load(block));
        assertThat(YamlHint.oneLine("not: [closed\n  x")).isEqualTo("not: [closed x");
    }
}
