package dev.magus.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * A connection's frames from the threads of its run (magus's lines, the child's bytes, the exit),
 * each written after every frame handed over before it, and those that arrive together in one
 * flush: one task on the event loop and one write to the socket. The frames wait here only until the loop runs the
 * task; they count towards the connection's high-water mark ({@link #queuedBytes}) until they are
 * in the channel's own buffer. Only the child's bytes wait for room below that mark; magus's lines
 * are handed over without waiting, bounded by the diagnostics of one chunk of output.
 */
final class FrameWrites {
    private final Channel channel;
    /** Told after each drain: writers waiting for room may look again. */
    private final Runnable drained;
    private final Object lock = new Object();
    // Guarded by lock.
    private List<ByteBuf> queued = new ArrayList<>(4);
    private long queuedBytes;
    private boolean scheduled;
    private boolean closeAfter;

    FrameWrites(Channel channel, Runnable drained) {
        this.channel = channel;
        this.drained = drained;
    }

    /** Writes {@code frame} (owned from now on) after every frame handed over before it. */
    void write(ByteBuf frame) {
        hand(frame, false);
    }

    /** Writes {@code frame} after every frame handed over before it, then closes the connection. */
    void writeLast(ByteBuf frame) {
        hand(frame, true);
    }

    /** Bytes handed over and not yet in the connection's own buffer. */
    long queuedBytes() {
        synchronized (lock) {
            return queuedBytes;
        }
    }

    private void hand(ByteBuf frame, boolean last) {
        boolean schedule;
        synchronized (lock) {
            queued.add(frame);
            queuedBytes += frame.readableBytes();
            closeAfter |= last;
            schedule = !scheduled;
            scheduled = true;
        }
        if (schedule) {
            try {
                channel.eventLoop().execute(this::drain);
            } catch (RejectedExecutionException e) {
                // The loop is shut down: the connection is gone, and so is whatever was for it.
                drop();
            }
        }
    }

    /** On the event loop: everything handed over so far, in order, then one flush (and the close, once asked). */
    private void drain() {
        List<ByteBuf> frames;
        boolean close;
        long taken;
        synchronized (lock) {
            frames = queued;
            queued = new ArrayList<>(4);
            // Still counted until they are in the channel's own buffer (counted there from then
            // on): zeroed here, a writer could add a frame past the mark in between (review).
            taken = queuedBytes;
            scheduled = false;
            close = closeAfter;
        }
        try {
            writeAll(frames, close);
        } finally {
            synchronized (lock) {
                queuedBytes -= taken;
            }
        }
        drained.run();
    }

    private void writeAll(List<ByteBuf> frames, boolean close) {
        int n = frames.size();
        for (int i = 0; i < n - 1; i++) {
            channel.write(frames.get(i), channel.voidPromise());
        }
        if (close) {
            // Closed once the last frame is written, as the exit's own write closed it before.
            channel.writeAndFlush(n > 0 ? frames.get(n - 1) : Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        } else if (n > 0) {
            channel.writeAndFlush(frames.get(n - 1), channel.voidPromise());
        }
    }

    private void drop() {
        List<ByteBuf> frames;
        synchronized (lock) {
            frames = queued;
            queued = new ArrayList<>(4);
            queuedBytes = 0;
            scheduled = false;
        }
        frames.forEach(ByteBuf::release);
        drained.run();
    }
}
