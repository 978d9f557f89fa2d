package dev.magus.events;

/**
 * The access a diagnostic is about; {@code NONE} for codes that concern no single access.
 * {@code CONNECT} and {@code BIND} are a TCP connection out and a listening port (MGS2013);
 * {@code SOCKET} is opening a socket the seccomp layer refuses (MGS2015).
 */
public enum Operation {
    READ, WRITE, EXEC, NONE, CONNECT, BIND, SOCKET;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
