package dev.magus.landlock.supervise;

import reactor.core.publisher.Mono;

/**
 * Decides about an access the run's policy refused, while the caller waits: a prompt on the
 * terminal, a frame to a client, a program's own rule. Asked off the supervisor's thread: other
 * calls go on being answered meanwhile. An empty or failed answer, or none within the run's
 * timeout ({@link Approval}), denies. Only opens (a read, a write, a create, a listing) and
 * {@code mkdir}s are asked; an exec is never approvable, since an approved access is a descriptor
 * magus opens and hands over, or a directory magus makes.
 */
@FunctionalInterface
public interface Approver {
    Mono<Decision> ask(Ask ask);
}
