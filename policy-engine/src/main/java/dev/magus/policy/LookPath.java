package dev.magus.policy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds the binary a command name runs, as Go's {@code exec.LookPath} (and the shell) do, so
 * that the exec check runs on the file that would really be executed: an unqualified
 * {@code curl} is checked at {@code /usr/bin/curl}.
 */
public final class LookPath {
    private LookPath() {
    }

    /**
     * @param command a name ({@code curl}) or a path ({@code ./gradlew}, {@code /usr/bin/env}):
     *                a name containing {@code /} is not searched for
     * @param pathVar the child's {@code PATH}; an empty entry means the working directory
     * @param cwd     the child's working directory
     * @return the first executable regular file, absolute (not resolved through links); empty
     *         when there is none
     */
    public static Optional<Path> find(String command, String pathVar, Path cwd) {
        if (command.isEmpty()) {
            return Optional.empty();
        }
        if (command.indexOf('/') >= 0) {
            Path p = cwd.resolve(command);
            return executable(p) ? Optional.of(p) : Optional.empty();
        }
        for (String dir : pathVar.split(File.pathSeparator, -1)) {
            Path p = cwd.resolve(dir.isEmpty() ? "." : dir).resolve(command);
            if (executable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private static boolean executable(Path p) {
        return Files.isRegularFile(p) && Files.isExecutable(p);
    }
}
