package dev.magus.landlock.denials.audit;

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
    public static final String BLOCKERS = "blockers";
    public static final String DOMAIN = "domain";

    private AuditDiagnostics() {
    }

    public static List<Diagnostic> of(AuditRecord.Access access, Path cwd, DenialConfirmer policy) {
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
            out.add(d.withDetail(BLOCKERS, String.join(",", access.blockers())).withDetail(DOMAIN, access.domain()));
        }
        return List.copyOf(out);
    }

    static Code codeOf(Operation op) {
        return switch (op) {
            case READ -> Code.MGS2001;
            case WRITE -> Code.MGS2002;
            case EXEC -> Code.MGS2007;
            case CONNECT, BIND -> Code.MGS2013;
            case NONE -> throw new IllegalArgumentException("no code for " + op);
        };
    }
}
