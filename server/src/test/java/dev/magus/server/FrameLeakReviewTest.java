package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Review: runs that end every way (read to the end, disconnect mid-output, never read then disconnect) leak no ByteBuf. */
class FrameLeakReviewTest {
    static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    static {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            @SuppressWarnings("deprecation")
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval, long maxActive) {
                return new ResourceLeakDetector<T>(resource, samplingInterval) {
                    @Override
                    protected void reportTracedLeak(String type, String records) {
                        LEAKS.add(type + records);
                    }

                    @Override
                    protected void reportUntracedLeak(String type) {
                        LEAKS.add(type);
                    }
                };
            }
        });
    }

    @TempDir
    Path root;

    @Test
    void noRunLeaksAFrame() throws Exception {
        try (Fixture f = new Fixture(root)) {
            for (int i = 0; i < 6; i++) {
                // Read to the end, with a line of magus's (-v: the debug ones too).
                Fixture.Result r = f.forward(f.run(f.env, List.of("-v"), "sh", "-c", "seq 1 20000; seq 1 3000 >&2"));
                assertThat(r.status()).isZero();
                // Disconnect mid-output.
                try (ServerClient c = f.client()) {
                    c.send(f.run("sh", "-c", "while :; do seq 1 2000; done"));
                    for (int n = 0; n < 50; n++) {
                        c.read();
                    }
                }
                // Never read, then disconnect.
                try (ServerClient c = f.client()) {
                    c.send(f.run("sh", "-c", "while :; do seq 1 2000; done"));
                    Thread.sleep(300);
                }
            }
            Thread.sleep(1000);
        }
        for (int round = 0; round < 5; round++) {
            System.gc();
            Thread.sleep(200);
            for (int i = 0; i < 200; i++) { // each tracked allocation polls the detector's queue
                ByteBuf b = ByteBufAllocator.DEFAULT.directBuffer(64);
                b.release();
                ByteBuf h = ByteBufAllocator.DEFAULT.heapBuffer(64);
                h.release();
            }
        }
        assertThat(LEAKS).as("leaks").isEmpty();
    }

    @Test
    void aStalledClientThatDisconnectsStillHasItsGroupKilled() throws Exception {
        try (Fixture f = new Fixture(root)) {
            long pid = -1;
            try (ServerClient c = f.client()) {
                c.send(f.run("sh", "-c", "echo $$; while :; do seq 1 2000; done"));
                StringBuilder out = new StringBuilder();
                while (out.indexOf("\n") < 0) {
                    if (c.read() instanceof Frame.Stdout o) {
                        out.append(new String(o.bytes(), java.nio.charset.StandardCharsets.US_ASCII));
                    }
                }
                pid = Long.parseLong(out.substring(0, out.indexOf("\n")));
                Thread.sleep(1500); // not reading: the server's pipe readers wait at the high-water mark
                assertThat(running(pid)).isTrue();
                assertThat(f.server.pendingBytes()).isLessThanOrEqualTo(MagusServer.HIGH_WATER + 2L * 1024 * 1024);
            }
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
            while (running(pid) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(running(pid)).as("the stalled run's shell %d still runs", pid).isFalse();
        }
    }

    private static boolean running(long pid) {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (java.io.IOException e) {
            return false;
        }
    }

}
