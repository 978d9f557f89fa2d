package dev.magus.orchestrator.run;

import dev.magus.events.Code;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * How a run ended.
 *
 * @param status      magus run's exit status (docs/network.md): the child's own, 128+N for signal N, 125 when magus
 *                    refused before the child started, 126 when the exec was denied or not
 *                    executable, 127 when the command was not found
 * @param signal      the signal that ended the child, 0 when none
 * @param duration    from submit to exit
 * @param diagnostics how many diagnostics of each code the run raised
 */
public record RunResult(int status, int signal, Duration duration, Map<Code, Long> diagnostics) {
    public RunResult {
        diagnostics = diagnostics.isEmpty()
                ? Map.of()
                : java.util.Collections.unmodifiableMap(new EnumMap<>(diagnostics));
    }

    public long count(Code code) {
        return diagnostics.getOrDefault(code, 0L);
    }
}
