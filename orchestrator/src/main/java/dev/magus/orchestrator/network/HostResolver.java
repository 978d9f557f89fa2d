package dev.magus.orchestrator.network;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * How the proxy turns a name into addresses: the seam that lets tests map names to servers on
 * loopback. The proxy resolves once, checks the answer and connects to exactly those
 * addresses, so a second, different answer (DNS rebinding) never reaches a socket. Called on a
 * thread that may block, never on an event loop.
 */
@FunctionalInterface
public interface HostResolver {

    /** Every address of {@code host}; a literal address resolves to itself. */
    List<InetAddress> resolve(String host) throws UnknownHostException;

    /** The system's resolver ({@code getaddrinfo}, through the JDK). */
    static HostResolver system() {
        return host -> List.of(InetAddress.getAllByName(host));
    }
}
