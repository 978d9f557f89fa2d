package dev.magus.landlock.supervise;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.landlock.denials.DenialConfirmer;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.Rule;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rules of a test's Landlock domain as a policy: an access is refused unless a rule's path
 * holds the resolved path (symbolic links followed, as the kernel does) with the right.
 */
final class RulesConfirmer implements DenialConfirmer {
    private final List<Rule> rules;

    RulesConfirmer(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    @Override
    public Optional<Diagnostic> confirm(Operation op, Path path, Path cwd) {
        Path p = resolved(cwd.resolve(path));
        Access need = switch (op) {
            case READ -> Access.READ;
            case WRITE -> Access.WRITE;
            case EXEC -> Access.EXEC;
            default -> throw new IllegalArgumentException(op.name());
        };
        if (rules.stream().anyMatch(r -> p.startsWith(r.path()) && r.mode().has(need))) {
            return Optional.empty();
        }
        Code code = op == Operation.READ ? Code.MGS2001 : op == Operation.WRITE ? Code.MGS2002 : Code.MGS2007;
        return Optional.of(new Diagnostic(code, op.label() + " denied: " + p, p.toString(), op, Layer.BINDING,
                "policy", Map.of()));
    }

    private static Path resolved(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            Path parent = p.getParent();
            return parent == null ? p.normalize() : resolved(parent).resolve(p.getFileName());
        }
    }
}
