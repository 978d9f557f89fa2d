package dev.magus.cli.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server before the token, against a server process of its own as {@code magus server start}
 * starts it: a flood of 1 000 idle connections and 50 giant partial ones (each a frame declared
 * large and never finished) leaves its resident memory within 64 MiB of what it holds idle, and
 * every run the user forwards meanwhile is served by it.
 */
class PreAuthFloodIT {
    static final int IDLE = 1000;
    static final int GIANT = 50;
    static final long BUDGET = 64L * 1024 * 1024;

    @TempDir
    Path root;

    static long rss(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new AssertionError("no VmRSS for " + pid);
    }

    static double forwarded(String status) {
        Matcher m = Pattern.compile("magus\\.server\\.forwarded\\{outcome=started\\}\\s+(\\d+)").matcher(status);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    @Test
    void aFloodBeforeTheTokenCostsLittleMemoryAndEveryRunIsServed() throws Exception {
        ServerProcesses.assumeLinux();
        Path runtime = Files.createDirectories(root.resolve("runtime"));
        Path ws = Files.createDirectories(root.resolve("ws"));
        Map<String, String> env = BinMagus.env(root, Files.createDirectories(root.resolve("home")), runtime);
        Path socket = runtime.resolve("magus/server.sock");
        List<SocketChannel> flood = new ArrayList<>();
        try {
            BinMagus.Ran started = BinMagus.run(ws, env, "server", "start");
            assertThat(started.status()).as(started.out()).isZero();
            Matcher m = Pattern.compile("\\(pid (\\d+),").matcher(BinMagus.run(ws, env, "server", "status").out());
            assertThat(m.find()).isTrue();
            long pid = Long.parseLong(m.group(1));
            for (int i = 0; i < 3; i++) {
                assertThat(BinMagus.run(ws, env, "run", "-q", "--", "true").status()).isZero();
            }
            Thread.sleep(1000);
            long idle = rss(pid);
            double before = forwarded(BinMagus.run(ws, env, "server", "status").out());
            System.err.printf("PreAuthFloodIT: idle server RSS %d KiB%n", idle / 1024);

            AtomicLong peak = new AtomicLong(idle);
            Thread floodThread = new Thread(() -> {
                try {
                    for (int i = 0; i < IDLE + GIANT; i++) {
                        SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
                        c.connect(UnixDomainSocketAddress.of(socket));
                        synchronized (flood) {
                            flood.add(c);
                        }
                        if (i % (IDLE / GIANT) == 0) {
                            // A giant partial frame: half declare 16 MiB and send 1 MiB of it, half a
                            // hello-sized frame never finished.
                            boolean huge = (i / (IDLE / GIANT)) % 2 == 0;
                            ByteBuffer b = ByteBuffer.allocate(4 + (huge ? 1 << 20 : 4000));
                            b.putInt(huge ? 16 << 20 : 4092).position(b.capacity()).flip();
                            c.configureBlocking(false);
                            try {
                                c.write(b);
                            } catch (IOException closed) {
                                // the server closed it at the declared length, as it should
                            }
                        }
                    }
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, "flood");
            Thread sampler = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        peak.accumulateAndGet(rss(pid), Math::max);
                        Thread.sleep(50);
                    } catch (IOException | InterruptedException e) {
                        return;
                    }
                }
            }, "rss");
            sampler.start();
            floodThread.start();
            int runs = 5;
            for (int i = 0; i < runs; i++) {
                BinMagus.Ran r = BinMagus.run(ws, env, "run", "-q", "--", "sh", "-c", "printf served" + i);
                assertThat(r.status()).as(r.out()).isZero();
                assertThat(r.out()).isEqualTo("served" + i);
            }
            floodThread.join(TimeUnit.MINUTES.toMillis(2));
            Thread.sleep(1000);
            sampler.interrupt();
            sampler.join();
            String status = BinMagus.run(ws, env, "server", "status").out();
            System.err.printf("PreAuthFloodIT: peak RSS %d KiB during the flood (idle %d KiB); %d connections opened%n",
                    peak.get() / 1024, idle / 1024, flood.size());
            assertThat(flood).hasSize(IDLE + GIANT);
            assertThat(forwarded(status) - before).as("every run during the flood served by the server").isEqualTo(runs);
            assertThat(peak.get() - idle).as("RSS growth during the flood").isLessThanOrEqualTo(BUDGET);
        } finally {
            synchronized (flood) {
                for (SocketChannel c : flood) {
                    c.close();
                }
            }
            BinMagus.run(ws, env, "server", "stop");
        }
    }
}
