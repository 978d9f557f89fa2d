package dev.magus.landlock.supervise;

import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.events.Operation;
import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.NoLinkOpen;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The opens (and {@code mkdir}s) of a run with an {@link Approver}: each is held while the run's policy is asked and,
 * when it refuses, while the approver decides, off the supervisor's thread (other calls go on
 * being answered). An allowed open is opened by magus, with the call's own flags and mode and no
 * link followed on the path resolved before the ask ({@link NoLinkOpen#openAsAsked}), and its
 * descriptor is installed in the caller as the call's result; a path swapped for a link meanwhile
 * fails the call (ELOOP) instead. A denial, a timeout, an empty or failed answer fail the call
 * with EACCES. Each decision is one event: the refusal, with its {@code decision} detail.
 */
final class Approvals {
    /** openat2's RESOLVE_BENEATH and RESOLVE_IN_ROOT: relative to a descriptor magus does not open from. */
    private static final long RESOLVE_SCOPED = 0x08 | 0x10;
    private static final long O_CLOEXEC = 0x80000;

    private final Approval approval;
    private final SupervisedCheck check;
    private final Consumer<Diagnostic> events;
    private final Set<String> forRun = ConcurrentHashMap.newKeySet();
    private final Disposable.Composite pending = Disposables.composite();

    Approvals(Approval approval, SupervisedCheck check, Consumer<Diagnostic> events) {
        this.approval = approval;
        this.check = check;
        this.events = events;
    }

    /**
     * Whether the call is held for the policy and the approver: an open whose path magus can open
     * itself, or a {@code mkdir}.
     */
    static boolean askable(Call call, NotifiedCall.OpenHow how) {
        return switch (call) {
            case OPEN, OPENAT, OPENAT2, CREAT -> (how.resolve() & RESOLVE_SCOPED) == 0;
            case MKDIR, MKDIRAT -> true;
            default -> false;
        };
    }

    /** Decides {@code intercept}'s call off the caller's thread and answers it through {@code responder}. */
    void hold(Responder responder, long id, Call call, Intercept intercept, NotifiedCall.OpenHow how) {
        Disposable.Swap slot = Disposables.swap();
        pending.add(slot);
        slot.update(Mono.fromSupplier(() -> check.check(intercept))
                .subscribeOn(Schedulers.boundedElastic())
                .flatMap(refused -> refused.isEmpty() ? Mono.fromRunnable(() -> responder.proceed(id))
                        : decide(responder, id, new Held(call, intercept, how), refused.get()))
                .doFinally(s -> pending.remove(slot))
                .subscribe(x -> { }, e -> responder.fail(id, Errno.EACCES)));
    }

    /** A held call: what it is, what it named, and how it asked. */
    private record Held(Call call, Intercept intercept, NotifiedCall.OpenHow how) {
        boolean mkdir() {
            return call == Call.MKDIR || call == Call.MKDIRAT;
        }
    }

    private Mono<Void> decide(Responder responder, long id, Held held, Diagnostic refused) {
        Intercept intercept = held.intercept();
        NotifiedCall.OpenHow how = held.how();
        Optional<String> resolved = resolved(intercept.path());
        if (resolved.isEmpty()) {
            // Gone meanwhile: the kernel's own lookup answers, and Landlock still holds.
            return Mono.fromRunnable(() -> responder.proceed(id));
        }
        Ask ask = new Ask(intercept.pid(), process(intercept.pid()), intercept.path(), resolved.get(),
                held.mkdir() ? Ask.Access.CREATE : access(intercept.op(), how, Path.of(resolved.get())));
        String key = (held.mkdir() ? "MKDIR" : intercept.op().name()) + '\0' + ask.resolved();
        if (forRun.contains(key)) {
            return Mono.fromRunnable(() -> act(responder, id, ask, held).answer().run());
        }
        return Mono.defer(() -> approval.approver().ask(ask))
                .timeout(approval.timeout())
                .map(d -> new Outcome(d, d.label()))
                .onErrorResume(TimeoutException.class, e -> Mono.just(new Outcome(Decision.DENY, "timeout")))
                .onErrorResume(e -> Mono.just(new Outcome(Decision.DENY, "deny")))
                .defaultIfEmpty(new Outcome(Decision.DENY, "deny"))
                .doOnNext(o -> {
                    String said = o.label();
                    Done done;
                    if (o.decision() instanceof Decision.Deny) {
                        done = failed(responder, id, Errno.EACCES);
                    } else {
                        if (o.decision() instanceof Decision.AllowForRun) {
                            forRun.add(key);
                        }
                        done = act(responder, id, ask, held);
                        if (done.errno() != 0) {
                            said += "; magus's own " + (held.mkdir() ? "mkdir" : "open") + " failed: "
                                    + Errno.describe(done.errno());
                        }
                    }
                    events.accept(event(refused, ask, o.label(), said));
                    done.answer().run();
                })
                .then();
    }

    private record Outcome(Decision decision, String label) {
    }

    /**
     * What magus did in the held call's stead, and the answer still to send: sent after the
     * decision's event, so that the event is out before the caller can go on (and end the run).
     *
     * @param errno  0, or the errno the call fails with
     * @param answer sends the call's answer (and lets go of what magus opened)
     */
    private record Done(int errno, Runnable answer) {
    }

    /** Does what the held call asked, in its stead; its answer is not sent yet. */
    private static Done act(Responder responder, long id, Ask ask, Held held) {
        return held.mkdir() ? mkdir(responder, id, ask, held.how()) : open(responder, id, ask, held.how());
    }

    private static Done failed(Responder responder, long id, int errno) {
        return new Done(errno, () -> responder.fail(id, errno));
    }

    /**
     * Makes the directory in the resolved parent, opened following no link (a parent swapped for a
     * link meanwhile fails the call, ELOOP), with the call's mode; the call is answered with 0.
     */
    private static Done mkdir(Responder responder, long id, Ask ask, NotifiedCall.OpenHow how) {
        Path p = Path.of(ask.resolved());
        if (p.getParent() == null || p.getFileName() == null) {
            return failed(responder, id, Errno.EEXIST);
        }
        int parent = NoLinkOpen.open(p.getParent().toString());
        if (parent < 0) {
            return failed(responder, id, -parent);
        }
        try {
            byte[] name = (p.getFileName().toString() + '\0').getBytes(StandardCharsets.UTF_8);
            long r = Natives.require().mkdirat(parent, name, (int) how.mode());
            return r < 0 ? failed(responder, id, (int) -r) : new Done(0, () -> responder.succeed(id));
        } finally {
            Natives.require().close(parent);
        }
    }

    /** Opens the resolved path as asked; the answer hands the caller the descriptor. */
    private static Done open(Responder responder, long id, Ask ask, NotifiedCall.OpenHow how) {
        int fd = NoLinkOpen.openAsAsked(ask.resolved(), how.flags() & ~O_CLOEXEC, how.mode(), how.resolve());
        if (fd < 0) {
            return failed(responder, id, -fd);
        }
        return new Done(0, () -> {
            try {
                responder.inject(id, fd, (how.flags() & O_CLOEXEC) != 0);
            } finally {
                Natives.require().close(fd);
            }
        });
    }

    private static Diagnostic event(Diagnostic refused, Ask ask, String decision, String said) {
        Diagnostic d = new Diagnostic(refused.code(), refused.message() + " (asked: " + said + ")", refused.subject(),
                refused.operation(), refused.layer(), refused.source(), refused.details())
                .withDetail(DetailKey.DECISION, decision);
        return ask.resolved().equals(ask.asked()) ? d : d.withDetail(DetailKey.RESOLVED, ask.resolved());
    }

    /** An exec the policy refused, said to be beyond any approval. */
    static Diagnostic unapprovable(Diagnostic refused) {
        return new Diagnostic(refused.code(), refused.message()
                + " (an exec cannot be approved: an approval hands over an open descriptor, never a program to run)",
                refused.subject(), refused.operation(), refused.layer(), refused.source(), refused.details())
                .withDetail(DetailKey.DECISION, "not-approvable");
    }

    /** Stops every ask still waiting (the run's processes are gone, or the listener closed). */
    void stop() {
        pending.dispose();
    }

    static Ask.Access access(Operation op, NotifiedCall.OpenHow how, Path resolved) {
        if (op == Operation.WRITE) {
            boolean exists = Files.exists(resolved, LinkOption.NOFOLLOW_LINKS);
            return (how.flags() & Call.O_CREAT) != 0 && !exists ? Ask.Access.CREATE : Ask.Access.WRITE;
        }
        return Files.isDirectory(resolved, LinkOption.NOFOLLOW_LINKS) ? Ask.Access.LIST : Ask.Access.READ;
    }

    /** Every link on {@code asked} resolved (its last name kept when it does not exist yet); empty when its directory is gone. */
    static Optional<String> resolved(String asked) {
        try {
            Path p = Path.of(asked);
            if (Files.exists(p)) {
                return Optional.of(p.toRealPath().toString());
            }
            Path parent = p.getParent();
            if (parent == null || p.getFileName() == null) {
                return Optional.empty();
            }
            return Optional.of(parent.toRealPath().resolve(p.getFileName()).toString());
        } catch (IOException | InvalidPathException e) {
            return Optional.empty();
        }
    }

    /** The caller's program: its {@code argv[0]}, else its {@code comm}; empty when neither can be read. */
    static String process(int tid) {
        Path proc = Path.of("/proc", Integer.toString(tid));
        try {
            byte[] cmdline = Files.readAllBytes(proc.resolve("cmdline"));
            int end = 0;
            while (end < cmdline.length && cmdline[end] != 0) {
                end++;
            }
            if (end > 0) {
                return new String(cmdline, 0, end, StandardCharsets.UTF_8);
            }
            return Files.readString(proc.resolve("comm")).strip();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
