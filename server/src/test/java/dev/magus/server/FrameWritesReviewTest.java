package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Review: every frame handed to FrameWrites is written once, in order, or released. */
class FrameWritesReviewTest {
    private static ByteBuf buf(String s) {
        return Unpooled.directBuffer().writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void framesForAClosedChannelAreReleased() {
        EmbeddedChannel ch = new EmbeddedChannel();
        AtomicInteger drained = new AtomicInteger();
        FrameWrites w = new FrameWrites(ch, drained::incrementAndGet);
        ch.close();
        ByteBuf a = buf("a");
        ByteBuf b = buf("exit");
        w.write(a);
        w.writeLast(b);
        ch.runPendingTasks();
        assertThat(a.refCnt()).isZero();
        assertThat(b.refCnt()).isZero();
        assertThat(w.queuedBytes()).isZero();
        assertThat(drained.get()).isEqualTo(1);
    }

    @Test
    void framesForAShutDownLoopAreReleased() throws Exception {
        EventLoop loop = new DefaultEventLoop();
        loop.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.MILLISECONDS).sync();
        Channel ch = (Channel) Proxy.newProxyInstance(Channel.class.getClassLoader(), new Class<?>[] {Channel.class},
                (p, m, args) -> {
                    if (m.getName().equals("eventLoop")) {
                        return loop;
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
        AtomicInteger drained = new AtomicInteger();
        FrameWrites w = new FrameWrites(ch, drained::incrementAndGet);
        ByteBuf a = buf("a");
        ByteBuf b = buf("exit");
        w.write(a);
        w.writeLast(b);
        assertThat(a.refCnt()).isZero();
        assertThat(b.refCnt()).isZero();
        assertThat(w.queuedBytes()).isZero();
        assertThat(drained.get()).isEqualTo(2);
    }

    @Test
    void orderIsKeptAndTheCloseFollowsTheLastFrame() {
        EmbeddedChannel ch = new EmbeddedChannel();
        FrameWrites w = new FrameWrites(ch, () -> { });
        w.write(buf("a"));
        w.write(buf("b"));
        w.writeLast(buf("exit"));
        w.write(buf("late")); // a stray's bytes after the exit, before the loop's turn
        assertThat(w.queuedBytes()).isEqualTo(1 + 1 + 4 + 4);
        ch.runPendingTasks();
        StringBuilder seen = new StringBuilder();
        for (ByteBuf m; (m = ch.readOutbound()) != null; m.release()) {
            seen.append(m.toString(StandardCharsets.US_ASCII)).append(' ');
        }
        assertThat(seen.toString()).isEqualTo("a b exit late ");
        assertThat(ch.isOpen()).isFalse();
    }
}
