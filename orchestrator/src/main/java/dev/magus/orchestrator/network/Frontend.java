package dev.magus.orchestrator.network;

import dev.magus.events.Diagnostic;
import dev.magus.policy.net.HostVerdict;
import dev.magus.policy.net.NetworkPolicy;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The client side of one proxied connection until its first request is decided: reads the
 * request head, asks the policy, resolves off the event loop, connects to a checked address,
 * then hands the connection to two {@link Relay}s. Everything here runs on the connection's
 * event loop, one event at a time.
 */
final class Frontend extends ChannelInboundHandlerAdapter {
    static final String NAME = "magus.proxy.frontend";

    private final NetworkPolicy policy;
    private final HostResolver resolver;
    private final Consumer<Diagnostic> refusals;
    private final ChannelGroup channels;
    private byte[] head = new byte[2048];
    private int size;
    private boolean decided;
    /** Bytes the client sent after the head while the name was resolved and the origin connected. */
    private final List<ByteBuf> pending = new ArrayList<>();

    Frontend(NetworkPolicy policy, HostResolver resolver, Consumer<Diagnostic> refusals, ChannelGroup channels) {
        this.policy = policy;
        this.resolver = resolver;
        this.refusals = refusals;
        this.channels = channels;
    }

    /**
     * The proxy accepts with auto-read off: the head is read here chunk by chunk, then the
     * relays read.
     */
    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.fireChannelActive();
        ctx.read();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf buf)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (decided) {
            pending.add(buf);
            return;
        }
        try {
            int n = Math.min(buf.readableBytes(), RequestHead.MAX_BYTES + 4 - size);
            if (size + n > head.length) {
                head = Arrays.copyOf(head, Math.max(head.length * 2, size + n));
            }
            buf.readBytes(head, size, n);
            size += n;
        } finally {
            buf.release();
        }
        RequestHead.Parse parse = RequestHead.parse(head, size);
        if (parse instanceof RequestHead.Parse.Bad bad) {
            decided = true;
            respond(ctx, "400 Bad Request", "magus proxy: " + bad.why());
        } else if (parse instanceof RequestHead.Parse.Whole whole) {
            decided = true;
            ctx.channel().config().setAutoRead(false);
            byte[] rest = Arrays.copyOfRange(head, whole.length(), size);
            head = null;
            decide(ctx, whole.head(), rest);
        } else {
            ctx.read();
        }
    }

    private void decide(ChannelHandlerContext ctx, RequestHead request, byte[] rest) {
        if (policy.grantFor(request.bareHost()).isEmpty()) {
            refuse(ctx, Refusals.notDeclared(request));
            return;
        }
        // getaddrinfo blocks: never on the event loop.
        Mono.fromCallable(() -> resolver.resolve(request.bareHost()))
                .subscribeOn(Schedulers.boundedElastic())
                .subscribe(addresses -> ctx.executor().execute(() -> resolved(ctx, request, rest, addresses)),
                        error -> ctx.executor().execute(() -> respond(ctx, "502 Bad Gateway",
                                "magus proxy: cannot resolve " + request.host() + ": " + error.getMessage())));
    }

    private void resolved(ChannelHandlerContext ctx, RequestHead request, byte[] rest, List<InetAddress> addresses) {
        HostVerdict verdict = policy.decide(request.bareHost(), addresses);
        if (verdict instanceof HostVerdict.Allowed allowed) {
            connect(ctx, request, rest, allowed.addresses(), 0);
        } else if (verdict instanceof HostVerdict.Internal internal) {
            refuse(ctx, Refusals.internal(request, internal.address(), internal.addressClass()));
        } else if (verdict instanceof HostVerdict.NotDeclared) {
            refuse(ctx, Refusals.notDeclared(request));
        } else {
            respond(ctx, "502 Bad Gateway", "magus proxy: " + request.host() + " has no address");
        }
    }

    /** Connects to the checked addresses in turn: the name is never looked up again. */
    private void connect(ChannelHandlerContext ctx, RequestHead request, byte[] rest, List<InetAddress> addresses, int i) {
        if (!ctx.channel().isActive()) {
            releasePending();
            return;
        }
        Channel client = ctx.channel();
        ChannelFuture f = new Bootstrap().group(client.eventLoop()).channel(client.getClass())
                .option(ChannelOption.AUTO_READ, false)
                // Without it a head and the bytes after it wait on the origin's delayed ACK.
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 30_000)
                .handler(new Relay(client))
                .connect(new InetSocketAddress(addresses.get(i), request.port()));
        f.addListener((ChannelFutureListener) done -> {
            if (!done.isSuccess()) {
                if (i + 1 < addresses.size()) {
                    connect(ctx, request, rest, addresses, i + 1);
                } else {
                    respond(ctx, "502 Bad Gateway", "magus proxy: cannot connect to " + request.authority() + ": "
                            + done.cause().getMessage());
                }
                return;
            }
            Channel origin = done.channel();
            channels.add(origin);
            if (!client.isActive()) {
                origin.close();
                releasePending();
                return;
            }
            if (request.isConnect()) {
                client.writeAndFlush(Unpooled.copiedBuffer(request.version() + " 200 Connection Established\r\n\r\n",
                        StandardCharsets.ISO_8859_1));
            } else {
                origin.write(Unpooled.wrappedBuffer(request.upstream()));
            }
            if (rest.length > 0) {
                origin.write(Unpooled.wrappedBuffer(rest));
            }
            pending.forEach(origin::write);
            pending.clear();
            origin.flush();
            ctx.pipeline().replace(this, "magus.proxy.relay", new Relay(origin));
            client.read();
        });
    }

    private void refuse(ChannelHandlerContext ctx, Diagnostic d) {
        refusals.accept(d);
        respond(ctx, "403 Forbidden", "magus: " + d.oneLine() + "\n");
    }

    private void respond(ChannelHandlerContext ctx, String status, String body) {
        releasePending();
        byte[] text = body.getBytes(StandardCharsets.UTF_8);
        String headers = "HTTP/1.1 " + status + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
                + text.length + "\r\nConnection: close\r\n\r\n";
        ctx.writeAndFlush(Unpooled.wrappedBuffer(headers.getBytes(StandardCharsets.ISO_8859_1), text))
                .addListener(ChannelFutureListener.CLOSE);
    }

    private void releasePending() {
        pending.forEach(ReferenceCountUtil::release);
        pending.clear();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releasePending();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        releasePending();
        ctx.close();
    }
}
