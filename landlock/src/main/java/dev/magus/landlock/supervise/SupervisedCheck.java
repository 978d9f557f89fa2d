package dev.magus.landlock.supervise;

import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.landlock.denials.DenialConfirmer;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The run's policy asked about one intercepted access. A refused one is the exact denial
 * Landlock gave the call, with one exception: a path that does not exist fails its lookup
 * before Landlock is asked (ENOENT), so it is no denial. A read or an exec needs the path; a
 * write the path or its parent (a create).
 */
final class SupervisedCheck {
    private final DenialConfirmer policy;
    private final Path cwd;

    SupervisedCheck(DenialConfirmer policy, Path cwd) {
        this.policy = policy;
        this.cwd = cwd;
    }

    /** The refusals among {@code batch}, in its order. */
    List<Diagnostic> refused(List<Intercept> batch) {
        List<Diagnostic> out = List.of();
        for (int k = 0; k < batch.size(); k++) {
            Optional<Diagnostic> d = check(batch.get(k));
            if (d.isPresent()) {
                if (out.isEmpty()) {
                    out = new ArrayList<>();
                }
                out.add(d.get());
            }
        }
        return out;
    }

    Optional<Diagnostic> check(Intercept i) {
        Optional<Diagnostic> refused;
        if (i.op() == Operation.CONNECT || i.op() == Operation.BIND) {
            refused = i.op() == Operation.CONNECT ? policy.confirmConnect(i.host(), OptionalInt.of(i.port()))
                    : policy.confirmBind(i.host(), OptionalInt.of(i.port()));
        } else {
            Path p;
            try {
                p = Path.of(i.path());
            } catch (InvalidPathException e) {
                return Optional.empty();
            }
            refused = policy.confirm(i.op(), p, cwd);
            if (refused.isPresent() && !reachable(i.op(), p)) {
                return Optional.empty();
            }
        }
        if (refused.isEmpty()) {
            return refused;
        }
        return refused.map(r -> new Diagnostic(r.code(), r.message(), r.subject(), r.operation(), Layer.KERNEL,
                Supervisor.SOURCE, r.details()).withDetail(DetailKey.PIDS, i.pid()));
    }

    private static boolean reachable(Operation op, Path p) {
        if (Files.exists(p) || Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return true;
        }
        Path parent = p.getParent();
        return op == Operation.WRITE && parent != null && Files.isDirectory(parent);
    }
}
