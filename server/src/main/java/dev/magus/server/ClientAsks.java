package dev.magus.server;

import dev.magus.landlock.supervise.Ask;
import dev.magus.landlock.supervise.Approver;
import dev.magus.landlock.supervise.Decision;
import dev.magus.server.protocol.Frame;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * The approver of a forwarded {@code --ask} run: each ask is an {@link Frame.Ask} to the client,
 * answered by its {@link Frame.Decision} of the same id. Never blocks: the frame is handed to the
 * connection's writes and the answer completes the ask when it is read. An ask the run stopped
 * waiting for (its time ran out) is forgotten, so a late answer is dropped; once the client is
 * gone every waiting ask, and every later one, is denied.
 */
final class ClientAsks implements Approver {
    private final Consumer<Frame.Ask> send;
    private final Duration timeout;
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, MonoSink<Decision>> waiting = new ConcurrentHashMap<>();
    private volatile boolean gone;

    /**
     * @param send    writes an ask frame to the client, in order with the run's other frames
     * @param timeout how long the run waits for each answer: said in the frame, so the client stops asking then
     */
    ClientAsks(Consumer<Frame.Ask> send, Duration timeout) {
        this.send = send;
        this.timeout = timeout;
    }

    @Override
    public Mono<Decision> ask(Ask ask) {
        return Mono.create(sink -> {
            long id = ids.incrementAndGet();
            sink.onDispose(() -> waiting.remove(id));
            waiting.put(id, sink);
            if (gone) {
                waiting.remove(id);
                sink.success(Decision.DENY);
                return;
            }
            send.accept(new Frame.Ask(id, ask.pid(), ask.process(), ask.asked(), ask.resolved(), ask.access().label(),
                    timeout.toMillis()));
        });
    }

    /** The client's answer: completes the ask of its id, if that one still waits; else it is dropped. */
    void decided(Frame.Decision d) {
        MonoSink<Decision> sink = waiting.remove(d.id());
        if (sink == null) {
            return;
        }
        sink.success(switch (d.decision()) {
            case "once" -> Decision.ALLOW_ONCE;
            case "run" -> Decision.ALLOW_FOR_RUN;
            default -> Decision.DENY;
        });
    }

    /** The client went away: whatever waits, and whatever is asked from now on, is denied. */
    void gone() {
        gone = true;
        for (Long id : waiting.keySet()) {
            MonoSink<Decision> sink = waiting.remove(id);
            if (sink != null) {
                sink.success(Decision.DENY);
            }
        }
    }
}
