package dev.magus.cli.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Mode;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import dev.magus.events.RunEvent.Diag;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class ViewReducerTest {
    static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
    static final String ID = "run-1";
    final ViewReducer reducer = new ViewReducer(3);

    static RunEvent.Diag denial(Code code, Operation op, Layer layer, String path, String yaml) {
        return new RunEvent.Diag(ID, T0, new Diagnostic(code, op.label() + " denied: " + path, path, op, layer,
                layer == Layer.KERNEL ? "inferred:stderr" : "policy", Map.of("requested", path, "allow_yaml", yaml)));
    }

    static String yaml(String path, String mode) {
        return "sandbox:\n  allow:\n    - path: " + path + "\n      mode: " + mode + "\n";
    }

    static RunEvent.Diag notice(Code code) {
        return new RunEvent.Diag(ID, T0, Diagnostic.of(code, code.summary(), "", Operation.NONE, Layer.POLICY, "env"));
    }

    ViewState run(RunEvent... events) {
        ViewState s = reducer.initial(List.of("sh", "-c", "true"), T0);
        for (RunEvent e : events) {
            s = reducer.apply(s, e);
        }
        return s;
    }

    @Test
    void countsEveryDiagnosticPerCode() {
        ViewState s = run(
                notice(Code.MGS2003),
                denial(Code.MGS2001, Operation.READ, Layer.KERNEL, "/h/.ssh/id_rsa", yaml("/h/.ssh", "ro")),
                denial(Code.MGS2001, Operation.READ, Layer.KERNEL, "/h/.aws/credentials", yaml("/h/.aws", "ro")),
                denial(Code.MGS2002, Operation.WRITE, Layer.BINDING, "/h/.bashrc", yaml("/h/.bashrc", "rw")));

        assertThat(s.counts()).containsExactly(
                Map.entry(Code.MGS2001, 2L), Map.entry(Code.MGS2002, 1L), Map.entry(Code.MGS2003, 1L));
        assertThat(s.count(Code.MGS2007)).isZero();
        assertThat(s.diagnosticsTotal()).isEqualTo(4);
        assertThat(s.deniedTotal()).as("a notice is counted but is no denial").isEqualTo(3);
    }

    @Test
    void keepsTheLatestDenialsNewestFirstWithPathRightLayerAndYaml() {
        ViewState s = run(
                denial(Code.MGS2001, Operation.READ, Layer.KERNEL, "/h/a", yaml("/h/a", "ro")),
                denial(Code.MGS2001, Operation.READ, Layer.KERNEL, "/h/b", yaml("/h/b", "ro")),
                denial(Code.MGS2002, Operation.WRITE, Layer.BINDING, "/h/c", yaml("/h/c", "rw")),
                denial(Code.MGS2007, Operation.EXEC, Layer.KERNEL, "/h/d", yaml("/h/d", "rx")));

        assertThat(s.denials()).extracting(ViewState.Denial::path).containsExactly("/h/d", "/h/c", "/h/b");
        assertThat(s.deniedTotal()).isEqualTo(4);
        ViewState.Denial newest = s.denials().get(0);
        assertThat(newest.code()).isEqualTo(Code.MGS2007);
        assertThat(newest.right()).isEqualTo(Operation.EXEC);
        assertThat(newest.layer()).isEqualTo(Layer.KERNEL);
        assertThat(newest.allowYaml()).contains(yaml("/h/d", "rx"));
        assertThat(s.denials().get(1).layer()).isEqualTo(Layer.BINDING);
        assertThat(s.denials().get(1).right()).isEqualTo(Operation.WRITE);
    }

    @Test
    void aDenialNoDeclarationCanAllowHasNoYamlHint() {
        Diagnostic control = new Diagnostic(Code.MGS2002, "write denied: ~/.bashrc is a control file", "/h/.bashrc",
                Operation.WRITE, Layer.BINDING, "policy", Map.of("requested", "/h/.bashrc", "control_file", ".bashrc"));
        Diagnostic loop = new Diagnostic(Code.MGS2009, "too many links", "", Operation.READ, Layer.BINDING, "policy",
                Map.of("requested", "/w/loop", "allow_yaml", "  "));

        ViewState s = run(new RunEvent.Diag(ID, T0, control), new RunEvent.Diag(ID, T0, loop));

        assertThat(s.denials()).extracting(ViewState.Denial::allowYaml).allMatch(java.util.Optional::isEmpty);
        assertThat(s.denials().get(0).path()).as("no subject: the requested path").isEqualTo("/w/loop");
    }

    @Test
    void startedTakesTheRunsArgvModeAndPidAndTicksMoveTheClockFromItsStart() {
        ViewState s = run(new RunEvent.Started(ID, T0.plusSeconds(1), List.of("npm", "install"), Mode.REQUIRED, 4242));
        assertThat(s.command()).containsExactly("npm", "install");
        assertThat(s.mode()).contains(Mode.REQUIRED);
        assertThat(s.pid()).isEqualTo(4242);
        assertThat(s.running()).isTrue();

        s = reducer.tick(s, T0.plusMillis(3400));
        assertThat(s.elapsed()).isEqualTo(Duration.ofMillis(2400));
        assertThat(reducer.tick(s, T0).elapsed()).as("a clock behind the start never goes negative").isZero();
    }

    @Test
    void outputLinesAreCounted() {
        ViewState s = run(
                new RunEvent.Output(ID, T0, RunEvent.Stream.STDOUT, "one"),
                new RunEvent.Output(ID, T0, RunEvent.Stream.STDERR, "two"));
        assertThat(s.lines()).isEqualTo(2);
        assertThat(s.diagnosticsTotal()).isZero();
    }

    @Test
    void exitEndsTheRunWithItsStatusAndFreezesTheClockAtItsDuration() {
        ViewState s = run(
                new RunEvent.Started(ID, T0, List.of("make"), Mode.BEST_EFFORT, 7),
                denial(Code.MGS2001, Operation.READ, Layer.KERNEL, "/h/.npmrc", yaml("/h/.npmrc", "ro")),
                new RunEvent.Exited(ID, T0.plusSeconds(5), 130, 2, Duration.ofMillis(5123)));

        assertThat(s.running()).isFalse();
        assertThat(s.ending()).contains(new ViewState.Ending(130, 2, Duration.ofMillis(5123)));
        assertThat(s.elapsed()).isEqualTo(Duration.ofMillis(5123));
        assertThat(reducer.tick(s, T0.plusSeconds(60))).isEqualTo(s);
        assertThat(s.count(Code.MGS2001)).isOne();
    }

    @Test
    void aRefusedRunEndsWithoutEverStarting() {
        ViewState s = run(notice(Code.MGS2012), new RunEvent.Exited(ID, T0, 125, 0, Duration.ofMillis(40)));
        assertThat(s.pid()).isZero();
        assertThat(s.command()).containsExactly("sh", "-c", "true");
        assertThat(s.ending()).map(ViewState.Ending::status).contains(125);
    }

    @Test
    void keepsAtLeastOne() {
        assertThatThrownBy(() -> new ViewReducer(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Property
    void whateverTheOrderCountsAddUpAndAtMostKeepDenialsAreKept(
            @ForAll @Size(max = 40) List<@From("diagnostics") Diag> diags,
            @ForAll @IntRange(min = 1, max = 5) int keep) {
        ViewReducer r = new ViewReducer(keep);
        ViewState s = r.initial(List.of("x"), T0);
        for (Diag d : diags) {
            s = r.apply(s, d);
        }
        long denials = diags.stream().filter(d -> d.diagnostic().operation() != Operation.NONE).count();
        assertThat(s.diagnosticsTotal()).isEqualTo(diags.size());
        assertThat(s.deniedTotal()).isEqualTo(denials);
        assertThat(s.denials()).hasSize((int) Math.min(keep, denials));
        List<String> newestFirst = new java.util.ArrayList<>(diags.stream()
                .filter(d -> d.diagnostic().operation() != Operation.NONE).map(d -> d.diagnostic().subject()).toList());
        java.util.Collections.reverse(newestFirst);
        assertThat(s.denials()).extracting(ViewState.Denial::path).containsExactlyElementsOf(newestFirst.subList(0, s.denials().size()));
    }

    @Provide
    Arbitrary<RunEvent.Diag> diagnostics() {
        Arbitrary<RunEvent.Diag> denied = Arbitraries.of(Operation.READ, Operation.WRITE, Operation.EXEC)
                .flatMap(op -> Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(8).map(name -> denial(
                        op == Operation.READ ? Code.MGS2001 : op == Operation.WRITE ? Code.MGS2002 : Code.MGS2007,
                        op, Layer.KERNEL, "/w/" + name, yaml("/w/" + name, "rw"))));
        Arbitrary<RunEvent.Diag> notices = Arbitraries.of(Code.MGS2003, Code.MGS2005, Code.MGS2008).map(ViewReducerTest::notice);
        return Arbitraries.oneOf(denied, notices);
    }
}
