package dev.magus.server;

import dev.magus.server.protocol.FrameCodec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.concurrent.TimeUnit;

/**
 * What a connection may cost the server before its hello carried the token: any process of the
 * user (a confined child with Unix sockets declared) can connect to the 0700 socket. The hello
 * must arrive within {@link #HELLO_WITHIN} and fit in {@link #HELLO_MAX} bytes (a larger declared
 * length closes at once); the request after it may be up to {@link FrameCodec#MAX_FRAME}, later
 * frames up to {@link FrameCodec#MAX_STREAM_FRAME}, so unfinished chunks hold little memory. At
 * most {@link #MAX_UNAUTHENTICATED} connections wait; the next drops the oldest, so idle
 * connections cannot keep the user's own out. A refused hello closes the connection.
 */
final class HelloGate {
    static final Duration HELLO_WITHIN = Duration.ofSeconds(2);
    static final int HELLO_MAX = 4096;
    static final int MAX_UNAUTHENTICATED = 64;
    /** Set on a channel whose hello carried the token. */
    private static final AttributeKey<Boolean> AUTHENTICATED = AttributeKey.valueOf("magus.authenticated");

    private final ServerMeters meters;
    /** Connections waiting for their hello, oldest first. */
    private final LinkedHashSet<Channel> waiting = new LinkedHashSet<>();

    HelloGate(ServerMeters meters) {
        this.meters = meters;
    }

    /** A new connection: counted among the waiting ones (the oldest dropped past the cap) and timed. */
    void admit(Channel ch) {
        Channel dropped = null;
        synchronized (waiting) {
            waiting.add(ch);
            if (waiting.size() > MAX_UNAUTHENTICATED) {
                Iterator<Channel> oldest = waiting.iterator();
                dropped = oldest.next();
                oldest.remove();
            }
        }
        if (dropped != null) {
            meters.refusal("hello");
            dropped.close();
        }
        ScheduledFuture<?> timer = ch.eventLoop().schedule(() -> {
            if (!isAuthenticated(ch)) {
                meters.refusal("hello");
                ch.close();
            }
        }, HELLO_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
        ch.closeFuture().addListener(f -> {
            timer.cancel(false);
            forget(ch);
        });
    }

    /** The hello carried the token: no longer timed, counted or held to the hello's size. */
    void authenticated(Channel ch) {
        ch.attr(AUTHENTICATED).set(Boolean.TRUE);
        forget(ch);
    }

    static boolean isAuthenticated(Channel ch) {
        return Boolean.TRUE.equals(ch.attr(AUTHENTICATED).get());
    }

    /** How many connections wait for their hello, for tests. */
    int waiting() {
        synchronized (waiting) {
            return waiting.size();
        }
    }

    private void forget(Channel ch) {
        synchronized (waiting) {
            waiting.remove(ch);
        }
    }

    /**
     * The connection's frame decoder: the first frame held to {@link #HELLO_MAX}, the second to
     * {@link FrameCodec#MAX_FRAME}, later ones to {@link FrameCodec#MAX_STREAM_FRAME}.
     */
    LengthFieldBasedFrameDecoder decoder() {
        return new Frames(meters);
    }

    private static final class Frames extends LengthFieldBasedFrameDecoder {
        private final ServerMeters meters;
        /** Frames decoded so far: 0 before the hello, 1 before the request. */
        private int decoded;

        Frames(ServerMeters meters) {
            super(FrameCodec.MAX_FRAME, 0, 4, 0, 4);
            this.meters = meters;
        }

        @Override
        protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
            long max = decoded == 0 ? HELLO_MAX : decoded == 1 ? FrameCodec.MAX_FRAME : FrameCodec.MAX_STREAM_FRAME + 4L;
            if (in.readableBytes() >= 4 && in.getUnsignedInt(in.readerIndex()) + 4 > max) {
                // Not read, not buffered: larger than any frame of this place in the conversation.
                in.skipBytes(in.readableBytes());
                meters.refusal(decoded == 0 ? "hello" : "frame");
                ctx.close();
                return null;
            }
            Object frame = super.decode(ctx, in);
            if (frame != null) {
                decoded = Math.min(decoded + 1, 2);
            }
            return frame;
        }
    }
}
