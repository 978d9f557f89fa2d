import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.security.SecureRandom;

/**
 * What the Java fast client pays the JDK for its one AF_UNIX socket, one step per
 * argument: nothing (the trivial JVM), a lambda (the JDK's SelectorProvider and
 * UnixDomainSocketsUtil each link one), SelectorProvider.provider(), SecureRandom's SHA1PRNG (what
 * sun.nio.ch.UnixDomainSockets' static initialiser makes, for names of sockets bound to no path),
 * and the socket itself: SocketChannel.open(StandardProtocolFamily.UNIX). Run by
 * bench/jdk-unix-socket-cost.sh.
 */
public final class UnixSocketCost {
    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "none":
                break;
            case "lambda":
                Runnable r = () -> { };
                r.run();
                break;
            case "provider":
                SelectorProvider.provider();
                break;
            case "sha1prng":
                SecureRandom.getInstance("SHA1PRNG");
                break;
            case "socket":
                SocketChannel.open(StandardProtocolFamily.UNIX).close();
                break;
            default:
                throw new IllegalArgumentException(args[0]);
        }
    }
}
