package dev.magus.landlock.denials.stream;

import dev.magus.landlock.denials.PrefixConfirmer;

import dev.magus.events.DetailKey;
import dev.magus.events.Code;
import dev.magus.events.RunEvent;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

class KernelDenialStreamTest {

    private static RunEvent.Output err(String line) {
        return new RunEvent.Output("r", Instant.EPOCH, RunEvent.Stream.STDERR, line);
    }

    @Test
    void without_audit_the_inferred_denials_flow_at_once() {
        Flux<RunEvent.Output> output = Flux.just(err("hello"), err("cat: /h/secret: Permission denied"),
                err("cat: /h/secret: Permission denied"), err("cat: /ws/x: Permission denied"));
        StepVerifier.create(KernelDenialStream.forRun(new KernelDenialStream.Sources(
                        new KernelDenialStream.RunChild("r", 1, "", Path.of("/ws"), java.util.List.of()), new PrefixConfirmer(Path.of("/h")),
                        output, Optional.empty(), Optional.empty(), KernelDenialStream.DEFAULT_WINDOW)))
                .expectNextMatches(d -> d.code() == Code.MGS2001 && d.subject().equals("/h/secret")
                        && d.source().equals("inferred:stderr") && !d.details().containsKey(DetailKey.REPEAT.key()))
                // The same refusal printed again is one more occurrence: counted, marked a repeat.
                .expectNextMatches(d -> d.subject().equals("/h/secret")
                        && "2".equals(d.details().get(DetailKey.REPEAT.key())))
                .verifyComplete();
    }
}
