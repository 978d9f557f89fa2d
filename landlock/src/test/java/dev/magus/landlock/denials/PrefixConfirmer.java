package dev.magus.landlock.denials;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A stand-in for the policy's binding-layer check: refuses every access under the given
 * prefixes and allows everything else. Records what it was asked.
 */
public final class PrefixConfirmer implements DenialConfirmer {
    private final List<Path> refused;
    private final List<String> asked = new ArrayList<>();

    public PrefixConfirmer(Path... refused) {
        this.refused = List.of(refused);
    }

    @Override
    public synchronized Optional<Diagnostic> confirm(Operation op, Path path, Path cwd) {
        Path p = cwd.resolve(path).normalize();
        asked.add(op + " " + p);
        if (refused.stream().noneMatch(p::startsWith)) {
            return Optional.empty();
        }
        Code code = switch (op) {
            case READ -> Code.MGS2001;
            case WRITE -> Code.MGS2002;
            case EXEC -> Code.MGS2007;
            case NONE, CONNECT, BIND, SOCKET -> throw new IllegalArgumentException(op.name());
        };
        String mode = switch (op) {
            case READ -> "ro";
            case WRITE -> "rw";
            default -> "rx";
        };
        return Optional.of(new Diagnostic(code, op.label() + " denied: " + p, p.toString(), op, Layer.BINDING,
                "policy", Map.of("allow_yaml", "sandbox:\n  allow:\n    - path: " + p + "\n      mode: " + mode + "\n")));
    }

    /** A run whose TCP rules refuse every connect (when it refuses any path) or none. */
    @Override
    public synchronized Optional<Diagnostic> confirmConnect(String host, java.util.OptionalInt port) {
        return tcp(Operation.CONNECT, host, port);
    }

    @Override
    public synchronized Optional<Diagnostic> confirmBind(String host, java.util.OptionalInt port) {
        return tcp(Operation.BIND, host, port);
    }

    private Optional<Diagnostic> tcp(Operation op, String host, java.util.OptionalInt port) {
        String subject = port.isPresent() ? (host.isEmpty() ? "port " : host + ":") + port.getAsInt()
                : "a TCP " + op.label();
        asked.add(op + " " + subject);
        if (refused.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Diagnostic(Code.MGS2013, op.label() + " denied: " + subject, subject, op, Layer.KERNEL,
                "landlock", Map.of("host", host)));
    }

    public static Code codeOf(Operation op) {
        return switch (op) {
            case READ -> Code.MGS2001;
            case WRITE -> Code.MGS2002;
            case EXEC -> Code.MGS2007;
            case CONNECT, BIND -> Code.MGS2013;
            case SOCKET -> Code.MGS2015;
            case NONE -> throw new IllegalArgumentException(op.name());
        };
    }

    public synchronized List<String> asked() {
        return List.copyOf(asked);
    }
}
