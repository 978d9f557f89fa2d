package dev.magus.telemetry;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Mode;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Builders for run events in tests; fixed instants, fake paths. */
public final class TestEvents {
    public static final Instant T0 = Instant.parse("2026-12-01T12:00:00Z");

    private TestEvents() {
    }

    public static RunEvent.Started started(String run, Mode mode) {
        return new RunEvent.Started(run, T0, List.of("npm", "install"), mode, 4242);
    }

    public static RunEvent.Output out(String run, String line) {
        return new RunEvent.Output(run, T0.plusMillis(1), RunEvent.Stream.STDOUT, line);
    }

    public static RunEvent.Diag diag(String run, Code code, Layer layer, String subject) {
        Operation op = code == Code.MGS2002 ? Operation.WRITE : code == Code.MGS2007 ? Operation.EXEC
                : code == Code.MGS2001 ? Operation.READ : Operation.NONE;
        return new RunEvent.Diag(run, T0.plusMillis(2),
                Diagnostic.of(code, code.summary() + ": " + subject, subject, op, layer, "stderr"));
    }

    public static RunEvent.Diag landlockWarning(String run) {
        return new RunEvent.Diag(run, T0.plusMillis(2), Diagnostic.of(Code.MGS2005,
                "best-effort without Landlock on this host", "", Operation.NONE, Layer.POLICY, "probe"));
    }

    public static RunEvent.Exited exited(String run, int status, int signal) {
        return new RunEvent.Exited(run, T0.plusSeconds(3), status, signal, Duration.ofMillis(1500));
    }
}
