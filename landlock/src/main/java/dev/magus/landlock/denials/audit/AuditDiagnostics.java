package dev.magus.landlock.denials.audit;

import dev.magus.events.DetailKey;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.landlock.denials.DenialConfirmer;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns one audited access into its diagnostic, for the record's primary operation
 * ({@link Blockers#primary}); all the blockers are kept in the details. The record is exact, so
 * it is reported even when the policy's own check would allow the path (the kernel ruleset
 * is then narrower than the policy, e.g. on an older ABI), and the policy, when it refuses,
 * contributes its code, message and details, notably the {@code allow_yaml} to declare.
 */
public final class AuditDiagnostics {

    /** The source of every diagnostic read from the audit stream. */
    public static final String SOURCE = "audit";

    private AuditDiagnostics() {
    }

    public static List<Diagnostic> of(AuditRecord.Access access, Path cwd, DenialConfirmer policy) {
        Optional<Operation> net = Blockers.network(access.blockers());
        if (net.isPresent()) {
            return List.of(network(net.get(), access, policy));
        }
        if (access.path().isEmpty()) {
            return List.of();
        }
        String subject = access.path().get();
        List<Diagnostic> out = new ArrayList<>();
        for (Operation op : Blockers.primary(access.blockers()).stream().toList()) {
            Optional<Diagnostic> refused = Optional.empty();
            try {
                refused = policy.confirm(op, Path.of(subject), cwd);
            } catch (InvalidPathException e) {
                // A name the platform cannot hold as a Path: report it as the kernel wrote it.
            }
            Diagnostic d = refused
                    .map(r -> new Diagnostic(r.code(), r.message(), r.subject(), r.operation(), Layer.KERNEL, SOURCE,
                            r.details()))
                    .orElseGet(() -> new Diagnostic(codeOf(op), op.label() + " denied by Landlock: " + subject
                            + " (the policy's own check allows it)", subject, op, Layer.KERNEL, SOURCE, Map.of()));
            out.add(d.withNames(DetailKey.BLOCKERS, access.blockers()).withDetail(DetailKey.DOMAIN, access.domain()));
        }
        return List.copyOf(out);
    }

    /**
     * A refused TCP connect or bind: the address and port the record names, the run's TCP rules
     * for the message and the YAML to declare ({@link DenialConfirmer#confirmConnect}), and the
     * record's own words when those rules would allow it (the kernel ruleset is then narrower).
     */
    static Diagnostic network(Operation op, AuditRecord.Access access, DenialConfirmer policy) {
        AuditRecord.Socket socket = access.socket().orElse(new AuditRecord.Socket("", java.util.OptionalInt.empty()));
        String host = socket.address().contains(":") ? "[" + socket.address() + "]" : socket.address();
        Optional<Diagnostic> refused = op == Operation.CONNECT ? policy.confirmConnect(host, socket.port())
                : policy.confirmBind(host, socket.port());
        String subject = socket.port().isPresent() ? (host.isEmpty() ? "port " : host + ":") + socket.port().getAsInt()
                : host.isEmpty() ? "a TCP " + (op == Operation.CONNECT ? "connect" : "bind") : host;
        Diagnostic d = refused
                .map(r -> new Diagnostic(r.code(), r.message(), r.subject(), r.operation(), Layer.KERNEL, SOURCE,
                        r.details()))
                .orElseGet(() -> new Diagnostic(Code.MGS2013, op.label() + " denied by Landlock: " + subject
                        + " (the run's TCP rules as magus knows them allow it)", subject, op, Layer.KERNEL, SOURCE,
                        Map.of(DetailKey.HOST.key(), host)));
        if (socket.port().isPresent()) {
            d = d.withDetail(DetailKey.PORT, socket.port().getAsInt());
        }
        return d.withNames(DetailKey.BLOCKERS, access.blockers()).withDetail(DetailKey.DOMAIN, access.domain());
    }

    /**
     * MGS2014: audit records were lost while a run was in flight, so some of its denials may
     * be missing from what was reported.
     *
     * @param lost     records the kernel dropped (its lost counter went up by this much)
     * @param overruns times the reader's socket overflowed (records lost, how many unknown)
     */
    public static Diagnostic lost(long lost, long overruns) {
        StringBuilder m = new StringBuilder();
        if (lost > 0) {
            m.append("the kernel dropped ").append(lost).append(lost == 1 ? " audit record" : " audit records");
        }
        if (overruns > 0) {
            m.append(lost > 0 ? ", and " : "").append("magus's audit reader overflowed ").append(overruns)
                    .append(overruns == 1 ? " time" : " times");
        }
        m.append(" while this run was in flight: some of its kernel denials may be missing");
        return new Diagnostic(Code.MGS2014, m.toString(), "", Operation.NONE, Layer.KERNEL, SOURCE,
                Map.of(DetailKey.LOST.key(), Long.toString(lost), DetailKey.OVERRUNS.key(), Long.toString(overruns)));
    }

    static Code codeOf(Operation op) {
        return switch (op) {
            case READ -> Code.MGS2001;
            case WRITE -> Code.MGS2002;
            case EXEC -> Code.MGS2007;
            case CONNECT, BIND -> Code.MGS2013;
            case SOCKET -> Code.MGS2015;
            case NONE -> throw new IllegalArgumentException("no code for " + op);
        };
    }
}
