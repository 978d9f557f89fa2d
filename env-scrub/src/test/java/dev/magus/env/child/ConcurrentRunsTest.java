package dev.magus.env.child;

import dev.magus.events.Mode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.env.Allowlist;
import dev.magus.env.overlay.Overlay;
import dev.magus.env.platform.Platform;
import dev.magus.env.proc.ProcAccess;
import dev.magus.env.scrub.Scrubber;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A server runs many runs at once from one process environment. */
class ConcurrentRunsTest {
    private static final int ROUNDS = 2_000;

    @Test
    void envSetInRunAIsInvisibleInConcurrentRunB(@TempDir Path root) throws Exception {
        Map<String, String> host = Collections.unmodifiableMap(HostEnvironments.twoHundred());
        Scrubber scrubber = Scrubber.of(Platform.LINUX, Allowlist.parse(List.of("MISE_*"), "magus.yaml"));
        SandboxDirs dirsA = new SandboxDirs(root.resolve("a-tmp"), root.resolve("cache"), root.resolve("state"));
        SandboxDirs dirsB = new SandboxDirs(root.resolve("b-tmp"), root.resolve("cache"), root.resolve("state"));
        Overlay a = Overlay.empty().set("ONLY_IN_A", "a").set("SHARED", "from-a").unset("PATH");
        Overlay b = Overlay.empty().set("SHARED", "from-b").unset("HOME");

        CyclicBarrier barrier = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<List<ChildEnvironment>> runA = CompletableFuture.supplyAsync(() -> build(barrier, host,
                    ChildEnvRequest.sandboxed(Mode.BEST_EFFORT, scrubber, dirsA, a, ProcAccess.withhold())), pool);
            CompletableFuture<List<ChildEnvironment>> runB = CompletableFuture.supplyAsync(() -> build(barrier, host,
                    ChildEnvRequest.off(b, ProcAccess.withhold())), pool);

            for (ChildEnvironment env : runA.get(60, TimeUnit.SECONDS)) {
                assertThat(env.variables()).containsEntry("ONLY_IN_A", "a").containsEntry("SHARED", "from-a")
                        .containsEntry("HOME", "/home/dev").containsEntry("TMPDIR", dirsA.privateTemp().toString())
                        .doesNotContainKey("PATH");
            }
            for (ChildEnvironment env : runB.get(60, TimeUnit.SECONDS)) {
                assertThat(env.variables()).doesNotContainKeys("ONLY_IN_A", "HOME")
                        .containsEntry("SHARED", "from-b")
                        .containsEntry("PATH", HostEnvironments.BASELINE.get("PATH"))
                        .containsEntry("TMPDIR", "/tmp");
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(host).isEqualTo(HostEnvironments.twoHundred());
        assertThat(System.getenv()).doesNotContainKeys("ONLY_IN_A", "SHARED");
    }

    /** Both threads start each round together so the builds really interleave. */
    private static List<ChildEnvironment> build(CyclicBarrier barrier, Map<String, String> host, ChildEnvRequest request) {
        List<ChildEnvironment> out = new ArrayList<>(ROUNDS);
        try {
            for (int i = 0; i < ROUNDS; i++) {
                if (i % 100 == 0) {
                    barrier.await(30, TimeUnit.SECONDS);
                }
                out.add(ChildEnv.childEnv(host, request));
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return out;
    }
}
