/** magus server: forwarded runs over a tokened Unix socket, and the client that forwards them. */
module dev.magus.server {
    requires transitive dev.magus.orchestrator;
    requires transitive micrometer.registry.prometheus;
    requires reactor.core;
    requires io.netty.buffer;
    requires io.netty.common;
    requires io.netty.codec; // io.netty.handler.codec (the frame decoder base)
    requires io.netty.handler;
    requires io.netty.transport;
    // The epoll transport: a connection's own descriptor, on which a client's stdin descriptor is received.
    requires io.netty.transport.classes.epoll;
    requires io.netty.transport.unix.common;
    requires com.fasterxml.jackson.core; // the forwarding client's JSON (FastClient)
    requires com.fasterxml.jackson.databind;
    requires jdk.httpserver;
    requires jdk.unsupported;
    requires org.slf4j;

    exports dev.magus.server;
    exports dev.magus.server.client;
    exports dev.magus.server.lifecycle;
    exports dev.magus.server.protocol;
    exports dev.magus.server.socket;
}
