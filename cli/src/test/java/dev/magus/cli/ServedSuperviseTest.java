package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.RunGrammar;
import dev.magus.server.ServedRun;
import dev.magus.server.protocol.Frame;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A forwarded {@code --supervise} is the server's run, parsed by the command line's own model and
 * supervised there; the options only this process can serve still hand the run back, {@code -v}
 * saying why.
 */
class ServedSuperviseTest {
    @TempDir
    Path cwd;
    private final dev.magus.orchestrator.run.RunServices services = new dev.magus.orchestrator.run.RunServices();

    @AfterEach
    void closeServices() {
        services.close();
    }

    private RunGrammar.Parsed parse(String... words) {
        return new ServedCommandLine(services).parse(new Frame.Command(List.of(words), cwd.toString(),
                Map.of("HOME", cwd.toString(), "PATH", "/usr/bin:/bin"), false, false, true));
    }

    @Test
    void superviseIsServedAndSaysSo() {
        RunGrammar.Parsed p = parse("run", "-v", "--supervise", "--", "cat", "x");
        assertThat(p).isInstanceOf(RunGrammar.Serve.class);
        ServedRun s = ((RunGrammar.Serve) p).run();
        assertThat(s.supervise()).isTrue();
        assertThat(s.ask()).isEmpty();
        assertThat(s.argv()).containsExactly("cat", "x");
        assertThat(((RunGrammar.Serve) parse("run", "--", "cat", "x")).run().supervise()).isFalse();
        ServedRun asking = ((RunGrammar.Serve) parse("run", "--supervise", "--ask", "--", "cat", "x")).run();
        assertThat(asking.supervise()).isTrue();
        assertThat(asking.ask()).isPresent();
    }

    @Test
    void anOptionOnlyThisProcessServesStillHandsASupervisedRunBack() {
        RunGrammar.Parsed p = parse("run", "-v", "--supervise", "--kernel-audit", "--", "cat", "x");
        assertThat(p).isInstanceOf(RunGrammar.Local.class);
        assertThat(((RunGrammar.Local) p).message()).isEqualTo("magus: --kernel-audit is served by this process only: running here");
    }
}
