package dev.magus.landlock.denials.infer;

import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import dev.magus.landlock.denials.DenialConfirmer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Source 1 for one run: the child's output lines in, confirmed kernel-layer diagnostics out.
 *
 * <p>Every candidate the parser finds is put to the policy; only a refusal the policy itself
 * gives becomes a diagnostic, with the policy's code, subject and details (the
 * {@code allow_yaml} to declare), {@code layer=kernel} and {@code source=inferred:<stream>}.
 * A tool often reports one denial several times (a message and a stack dump, a retry), so a
 * denial of the same operation on the same resolved path is reported once per run.
 *
 * <p>When the message does not say which access failed ({@link AccessHint#UNKNOWN}), the
 * path's state decides the order the policy is asked in, and the first refusal is reported:
 * a path that does not exist can only have been refused a create (WRITE first); an
 * executable regular file is most likely what bash or make failed to run (EXEC first);
 * anything else was most likely read (READ, then WRITE, then EXEC).
 */
public final class KernelDenials {

    /** The detail key holding the output line that gave the denial away. */
    public static final String EVIDENCE = "evidence";

    private final DenialConfirmer confirmer;
    private final Path cwd;
    private final DenialParser parser;
    private final Function<Path, List<Operation>> unknownOrder;
    private final Set<Key> reported = new HashSet<>();
    private final Set<Candidate.Key> asked = new HashSet<>();

    /**
     * @param confirmer the run's policy check
     * @param cwd       the child's working directory, absolute
     */
    public KernelDenials(DenialConfirmer confirmer, Path cwd) {
        this(confirmer, cwd, new DenialParser(), KernelDenials::unknownOrder);
    }

    KernelDenials(DenialConfirmer confirmer, Path cwd, DenialParser parser,
            Function<Path, List<Operation>> unknownOrder) {
        this.confirmer = Objects.requireNonNull(confirmer, "confirmer");
        this.cwd = Objects.requireNonNull(cwd, "cwd");
        if (!cwd.isAbsolute()) {
            throw new IllegalArgumentException("cwd must be absolute: " + cwd);
        }
        this.parser = Objects.requireNonNull(parser, "parser");
        this.unknownOrder = Objects.requireNonNull(unknownOrder, "unknownOrder");
    }

    /** The diagnostics one output event gives away: usually none. */
    public List<Diagnostic> accept(RunEvent.Output output) {
        return accept(output.stream(), output.line());
    }

    /** The diagnostics one line gives away: usually none, never one already reported. */
    public synchronized List<Diagnostic> accept(RunEvent.Stream stream, String line) {
        List<Candidate> candidates = parser.parse(line, stream, cwd);
        if (candidates.isEmpty()) {
            return List.of();
        }
        List<Diagnostic> out = new ArrayList<>(1);
        for (Candidate c : candidates) {
            if (!asked.add(c.key())) {
                continue;
            }
            confirm(c).ifPresent(d -> {
                if (reported.add(new Key(d.operation(), d.subject()))) {
                    out.add(d);
                }
            });
        }
        return List.copyOf(out);
    }

    private Optional<Diagnostic> confirm(Candidate c) {
        List<Operation> order = c.hint() == AccessHint.UNKNOWN ? unknownOrder.apply(c.path()) : c.hint().operations();
        for (Operation op : order) {
            Optional<Diagnostic> refused = confirmer.confirm(op, c.path(), cwd);
            if (refused.isPresent()) {
                Diagnostic d = refused.get();
                Diagnostic kernel = new Diagnostic(d.code(), d.message(), d.subject(), d.operation(), Layer.KERNEL,
                        "inferred:" + c.stream().name().toLowerCase(Locale.ROOT), d.details());
                return Optional.of(kernel.withDetail(EVIDENCE, c.line()));
            }
        }
        return Optional.empty();
    }

    /** The order to ask the policy in when the message leaves the access open. */
    static List<Operation> unknownOrder(Path path) {
        if (!Files.exists(path)) {
            return List.of(Operation.WRITE, Operation.READ, Operation.EXEC);
        }
        if (Files.isRegularFile(path) && Files.isExecutable(path)) {
            return List.of(Operation.EXEC, Operation.READ, Operation.WRITE);
        }
        return List.of(Operation.READ, Operation.WRITE, Operation.EXEC);
    }

    private record Key(Operation op, String subject) {
    }
}
