package dev.magus.policy.decl;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;

/** A declaration that cannot be honored: always an error, named by its layer and key. */
final class Mgs2004 {
    private Mgs2004() {
    }

    static SandboxException at(Site site, String field, String message) {
        return new SandboxException(Diagnostic.of(Code.MGS2004, message, site.subject(field),
                Operation.NONE, Layer.POLICY, site.source(field)));
    }
}
