package dev.magus.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CI smoke of the shaded jar: each benchmark class runs one tiny benchmark (path
 * resolution two: the kernel-first resolver and the walk alone), one fork, no
 * warm-up, one 100 ms iteration, pinned to a single parameter each, and must exit 0 and print
 * a result. No timing is asserted: the point is that the benchmarks keep compiling, their
 * fixtures keep building, and the jar keeps running. The spawn comparison runs three rounds
 * after one of warm-up, the CPU-time cross-check 50 ms of warm-up and 50 ms measured per
 * operation ({@code CpuTime 0.05}).
 */
class BenchmarksJarIT {
    private static final List<String> ONE_PER_CLASS = List.of(
            "dev.magus.bench.path.PathResolutionBench.magusResolver",
            "dev.magus.bench.path.PathResolutionBench.magusWalk",
            "dev.magus.bench.check.CheckBench.lookupAllowed",
            "dev.magus.bench.env.EnvScrubBench.scrub",
            "dev.magus.bench.policy.PolicyBuildBench.build",
            "dev.magus.bench.policy.PolicyMemoryBench.buildIndex",
            "dev.magus.bench.audit.ControlFileAuditBench.beforeAndAfter",
            "dev.magus.bench.audit.DescendantAuditBench.beforeAndAfterFromStateDir");

    private static Path jar;

    @BeforeAll
    static void findJar() {
        String property = System.getProperty("benchmarks.jar", "");
        boolean present = !property.isEmpty() && Files.isRegularFile(Path.of(property));
        if (!present) {
            System.err.println("BenchmarksJarIT skipped: no shaded jar (system property benchmarks.jar='" + property
                    + "'); run it through `mvn verify`, which packages bench/target/benchmarks.jar first");
        }
        Assumptions.assumeTrue(present, "the shaded benchmarks.jar is built by the package phase");
        jar = Path.of(property);
    }

    @Test
    void everyBenchmarkClassRunsOnceAndPrintsAResult() throws Exception {
        List<String> command = new ArrayList<>(List.of(java(), "-jar", jar.toString(),
                "-f", "1", "-wi", "0", "-i", "1", "-r", "100ms",
                "-p", "scenario=c6-l2-abs", "-p", "rules=10", "-p", "variables=20", "-p", "reader=native", "-p", "packages=5",
                "-foe", "true"));
        command.add(String.join("|", ONE_PER_CLASS.stream().map(b -> "^" + Pattern.quote(b) + "$").toList()));

        Run run = run(command, 240);

        assertThat(run.status).as(run.output).isZero();
        for (String benchmark : ONE_PER_CLASS) {
            assertThat(run.output).as("a result for " + benchmark)
                    .containsPattern("Result \"" + Pattern.quote(benchmark) + "\":\\s+[0-9][0-9.,]*\\s+(ops/s|us/op|ms/op)");
        }
    }

    @Test
    void spawnComparisonRunsAFewRounds() throws Exception {
        Run run = run(List.of(java(), "-cp", jar.toString(), "dev.magus.bench.spawn.SpawnCompare",
                "--rounds", "3", "--warmup", "1"), 120);

        assertThat(run.status).as(run.output).isZero();
        assertThat(run.output).containsPattern("\\| \\(a\\) plain ProcessBuilder \\| [0-9]+ \\|")
                .containsPattern("\\| \\(d\\) posix_spawn, calling thread \\(floor\\) \\| [0-9]+ \\|")
                .contains("| b/a |", "| b/d |", "| c/a |")
                // Either measured or said why not, never silently missing.
                .containsPattern("\\| \\(b\\) magus confined launcher \\| [0-9]+|\\(b\\) (launcher not available|Landlock is not available)")
                .containsPattern("\\| \\(c\\) bwrap \\||bwrap not installed, column c skipped");
    }

    @Test
    void cpuTimeCrossCheckRunsBriefly() throws Exception {
        Run run = run(List.of(java(), "-cp", jar.toString(), "dev.magus.bench.CpuTime", "0.05"), 120);

        assertThat(run.status).as(run.output).isZero();
        assertThat(run.output).containsPattern("\\| lookup, 10000 rules \\| [0-9,]+ \\|")
                .containsPattern("\\| scrub, 200 variables \\| [0-9,]+ \\|")
                .containsPattern("\\| resolve c6-l2-abs, PathResolver \\(kernel first\\) \\| [0-9,]+ \\|")
                .containsPattern("\\| resolve c6-l2-abs, PathResolver.walking\\(\\) \\| [0-9,]+ \\|")
                .containsPattern("\\| resolve c6-l2-abs, toRealPath \\| [0-9,]+ \\|");
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private record Run(int status, String output) {
    }

    private static Run run(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        Path log = Files.createTempFile("magus-bench-smoke-", ".log");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor();
                throw new AssertionError("timed out after " + timeoutSeconds + " s: " + command + "\n"
                        + Files.readString(log, StandardCharsets.UTF_8));
            }
            return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
