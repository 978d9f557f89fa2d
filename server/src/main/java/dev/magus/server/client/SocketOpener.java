package dev.magus.server.client;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;

/**
 * {@link FastClient}'s Unix-domain socket, opened on a thread of its own while the main thread
 * reads the environment, checks the socket directory, reads the token and writes the run's frames.
 *
 * <p>Opening the JDK's first Unix-domain socket is most of the fast client's own start (issue 15;
 * bench/README.md, "Issue 15, the Java fast client"): {@code SelectorProvider}'s and
 * {@code UnixDomainSocketsUtil}'s lambdas bootstrap {@code java.lang.invoke}, and
 * {@code UnixDomainSockets}' class initialiser makes a {@code SecureRandom}, which loads the
 * security providers and reads {@code java.security}. None of it depends on the run, so it runs
 * beside the run's own preparation instead of before it. Only the opening: the socket is connected
 * by the main thread, after the directory it is in was checked.
 */
final class SocketOpener extends Thread {
    private SocketChannel channel;
    private Throwable failure;
    private boolean abandoned;

    private SocketOpener() {
        super("magus-client-open");
        setDaemon(true);
    }

    /** Starts opening a socket. */
    static SocketOpener begin() {
        SocketOpener o = new SocketOpener();
        o.start();
        return o;
    }

    @Override
    public void run() {
        SocketChannel c;
        try {
            c = SocketChannel.open(StandardProtocolFamily.UNIX);
        } catch (Throwable e) {
            failure = e;
            return;
        }
        synchronized (this) {
            if (!abandoned) {
                channel = c;
                return;
            }
        }
        close(c);
    }

    /**
     * The socket, once open: what {@code SocketChannel.open} returned, or what it threw.
     *
     * @throws IOException as {@code SocketChannel.open} throws it, or when interrupted while waiting
     */
    SocketChannel take() throws IOException {
        try {
            join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abandon();
            throw new IOException("interrupted while opening the socket");
        }
        if (failure instanceof IOException e) {
            throw e;
        } else if (failure instanceof RuntimeException e) {
            throw e;
        } else if (failure instanceof Error e) {
            throw e;
        }
        return channel;
    }

    /** The socket is not wanted (no server to reach): closed now or as soon as it is open, without waiting for it. */
    void abandon() {
        SocketChannel c;
        synchronized (this) {
            abandoned = true;
            c = channel;
            channel = null;
        }
        if (c != null) {
            close(c);
        }
    }

    private static void close(SocketChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // never connected: nothing to tell anyone
        }
    }
}
