package dev.magus.orchestrator.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.EventLoopGroup;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The proxies' event loops: made by the first proxy that asks, daemon, and ended with their owner. */
class ProxyLoopsTest {
    @Test
    void noLoopUntilAProxyAsksThenOneGroupOfDaemonThreads() throws Exception {
        try (ProxyLoops loops = new ProxyLoops()) {
            assertThat(loops.started()).as("nothing made before the first proxied run").isFalse();
            EventLoopGroup group = loops.group();
            assertThat(loops.started()).isTrue();
            assertThat(loops.group()).as("every proxy of the owner shares it").isSameAs(group);
            CompletableFuture<Thread> on = new CompletableFuture<>();
            group.execute(() -> on.complete(Thread.currentThread()));
            Thread loop = on.get(10, TimeUnit.SECONDS);
            assertThat(loop.isDaemon()).as("a command line exits whatever a tunnel is doing").isTrue();
            assertThat(loop.getName()).startsWith("magus-proxy");
        }
    }

    @Test
    void closeShutsTheLoopsDownAndTakesNoMoreProxies() {
        ProxyLoops loops = new ProxyLoops();
        EventLoopGroup group = loops.group();
        loops.close();
        assertThat(group.isShuttingDown()).isTrue();
        assertThat(group.terminationFuture().awaitUninterruptibly(10, TimeUnit.SECONDS)).as("the loops ended").isTrue();
        assertThatThrownBy(loops::group).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closedBeforeAnyProxiedRunItNeverMakesTheLoops() {
        ProxyLoops loops = new ProxyLoops();
        loops.close();
        assertThatThrownBy(loops::group).isInstanceOf(IllegalStateException.class);
        assertThat(loops.started()).isFalse();
    }
}
