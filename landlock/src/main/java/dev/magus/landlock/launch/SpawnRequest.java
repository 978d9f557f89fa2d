package dev.magus.landlock.launch;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One child to start.
 *
 * @param executable       absolute path of the binary, as the binding layer's exec check
 *                         resolved and allowed it
 * @param argv             the arguments including {@code argv[0]} (usually the command as written)
 * @param environment      the complete environment of the child (already scrubbed)
 * @param workingDirectory where the child starts
 * @param stdio            what its descriptors 0, 1, 2 are
 */
public record SpawnRequest(Path executable, List<String> argv, Map<String, String> environment,
                           Path workingDirectory, Stdio stdio) {
    public SpawnRequest {
        Objects.requireNonNull(executable, "executable");
        Objects.requireNonNull(workingDirectory, "workingDirectory");
        Objects.requireNonNull(stdio, "stdio");
        if (!executable.isAbsolute()) {
            throw new IllegalArgumentException("executable must be an absolute, resolved path: " + executable);
        }
        argv = List.copyOf(argv);
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("argv needs at least argv[0]");
        }
        // Sorted, so the child's environment does not depend on a map's iteration order.
        environment = java.util.Collections.unmodifiableMap(new TreeMap<>(environment));
        for (Map.Entry<String, String> e : environment.entrySet()) {
            String k = e.getKey();
            if (k.isEmpty() || k.indexOf('=') >= 0 || k.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("bad environment variable name: '" + k + "'");
            }
            if (e.getValue() == null) {
                throw new IllegalArgumentException("environment variable " + k + " has no value (null)");
            }
        }
    }

    /** {@code argv[0]} = the executable, pipes for stdio. */
    public static SpawnRequest of(Path executable, List<String> args, Map<String, String> environment, Path workingDirectory) {
        List<String> argv = new java.util.ArrayList<>();
        argv.add(executable.toString());
        argv.addAll(args);
        return new SpawnRequest(executable, argv, environment, workingDirectory, Stdio.PIPES);
    }

    public SpawnRequest withStdio(Stdio s) {
        return new SpawnRequest(executable, argv, environment, workingDirectory, s);
    }
}
