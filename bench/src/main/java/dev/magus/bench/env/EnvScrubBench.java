package dev.magus.bench.env;

import dev.magus.env.child.ChildEnv;
import dev.magus.env.child.ChildEnvRequest;
import dev.magus.env.child.ChildEnvironment;
import dev.magus.env.child.SandboxDirs;
import dev.magus.env.overlay.Overlay;
import dev.magus.env.proc.ProcAccess;
import dev.magus.env.scrub.Scrubbed;
import dev.magus.env.scrub.Scrubber;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The environment half of a spawn: the allowlist filter alone ({@code scrub}) and the whole
 * {@code childEnv} of a sandboxed run (scrub, private TMPDIR, an overlay of two variables, the
 * floor, proc-socket withholding, MGS2003/2006 diagnostics), with 10 passthrough patterns.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class EnvScrubBench {

    @Param({"20", "200"})
    public int variables;

    private Map<String, String> host;
    private Scrubber scrubber;
    private ChildEnvRequest request;

    @Setup
    public void setUp() {
        host = HostEnvironment.of(variables);
        scrubber = HostEnvironment.scrubber();
        Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
        SandboxDirs dirs = new SandboxDirs(tmp.resolve("magus-run-bench"), tmp.resolve("magus-cache"), tmp.resolve("magus-state"));
        Overlay overlay = Overlay.empty().set("GOFLAGS", "-count=1").unset("LC_ALL");
        request = ChildEnvRequest.sandboxed(dev.magus.events.Mode.BEST_EFFORT, scrubber, dirs, overlay, ProcAccess.withhold());
        if (scrubber.scrub(host).kept().containsKey("AWS_ACCESS_KEY_ID")) {
            throw new IllegalStateException("the scrub kept a credential");
        }
    }

    @Benchmark
    public Scrubbed scrub() {
        return scrubber.scrub(host);
    }

    @Benchmark
    public ChildEnvironment childEnv() {
        return ChildEnv.childEnv(host, request);
    }
}
