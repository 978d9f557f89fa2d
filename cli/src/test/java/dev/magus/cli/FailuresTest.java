package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.run.Host;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** What a person sees when a command fails in a way no diagnostic foresaw: one line, no trace. */
class FailuresTest {
    @TempDir
    Path dir;

    @Command(name = "boom")
    static final class Boom implements Callable<Integer> {
        @Override
        public Integer call() {
            throw new IllegalStateException("the \u001b[2Jimpossible happened");
        }
    }

    @Test
    void anUnexpectedExceptionIsOneLineSayingItIsABugExit125() {
        StringWriter err = new StringWriter();
        int status = new CommandLine(new Boom())
                .setExecutionExceptionHandler(new Failures())
                .setErr(new PrintWriter(err, true))
                .execute();

        assertThat(status).isEqualTo(125);
        assertThat(err.toString()).isEqualTo("magus: an unexpected failure in magus itself (a bug; please"
                + " report it with this line): IllegalStateException: the \\x1b[2Jimpossible happened\n");
    }

    @Test
    void anEventsFileThatFillsUpIsSaidOnceAndTheRunKeepsItsStatus() throws IOException {
        Host host = Cli.fakeHost(dir, Map.of());
        Path ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: off\n");
        Path full = Path.of("/dev/full");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(full), "no /dev/full here");

        Cli.Result r = Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), "run", "--events", full.toString(), "--", "true");

        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.err().lines().filter(l -> l.startsWith("magus: MGS2004 --events: cannot write events to '/dev/full': "))
                .toList()).hasSize(1);
        assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
    }
}
