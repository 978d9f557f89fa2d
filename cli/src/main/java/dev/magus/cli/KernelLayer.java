package dev.magus.cli;

import dev.magus.events.Diagnostic;
import dev.magus.landlock.abi.AbiRights;
import dev.magus.landlock.abi.Decision;
import dev.magus.events.Mode;
import java.util.List;
import java.util.Optional;

/**
 * What the kernel layer does for a mode on a host with a given Landlock ABI, in words, from
 * {@link Decision#decide}: shared by {@code magus policy} and {@code magus probe}.
 *
 * @param kind       {@code confine}, {@code unconfined} or {@code refuse} (stable, for JSON)
 * @param summary    one line for a person
 * @param unenforced the rights the kernel leaves unenforced for this mode (empty when it
 *                   confines nothing: mode off)
 * @param diagnostic the MGS2005 / MGS2012 line the decision carries, if any
 */
record KernelLayer(String kind, String summary, List<String> unenforced, Optional<String> diagnostic) {

    static KernelLayer of(Mode mode, int abi) {
        Decision d = Decision.decide(mode, abi);
        if (d instanceof Decision.Confine c) {
            return new KernelLayer("confine", "children confined by Landlock ABI " + c.abi()
                    + " and the binding checks", c.unenforced(), c.warning().map(Diagnostic::oneLine));
        }
        if (d instanceof Decision.Refuse r) {
            return new KernelLayer("refuse", "refused before any child starts", AbiRights.unenforced(Math.max(abi, 0)),
                    Optional.of(r.diagnostic().oneLine()));
        }
        Decision.Unconfined u = (Decision.Unconfined) d;
        if (mode == Mode.OFF) {
            return new KernelLayer("unconfined", "no sandbox: nothing is checked", List.of(), Optional.empty());
        }
        return new KernelLayer("unconfined", "binding checks only: children are not confined", AbiRights.unenforced(0),
                u.warning().map(Diagnostic::oneLine));
    }
}
