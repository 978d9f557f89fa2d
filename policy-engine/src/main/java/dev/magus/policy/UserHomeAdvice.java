package dev.magus.policy;

import java.nio.file.Path;
import java.util.Optional;

/**
 * What a denial under another home's tool directory adds to its line, when the tool found that
 * home by a rule of its own rather than by {@code $HOME}: Maven and Gradle use Java's
 * {@code user.home}, taken from the password file, so under a fake or moved {@code HOME} they read
 * that home's {@code .m2} or {@code .gradle} (the fix hands {@code $HOME} to the JVM through the
 * variable the java spell passes); cargo and rustup installed under another home need both
 * {@code CARGO_HOME} and {@code RUSTUP_HOME} named (the binary alone leaves rustup with "no
 * default is configured"). Never a grant of the other home: it holds that home's credentials.
 */
final class UserHomeAdvice {
    private UserHomeAdvice() {
    }

    /** The sentence for {@code resolved}, when it lies in a {@code .m2}, {@code .gradle}, {@code .cargo} or {@code .rustup} outside {@code home}. */
    static Optional<String> of(Path resolved, Path home) {
        if (resolved.startsWith(home)) {
            return Optional.empty();
        }
        for (int i = 0; i < resolved.getNameCount(); i++) {
            String name = resolved.getName(i).toString();
            Path other = resolved.getRoot().resolve(i == 0 ? Path.of("") : resolved.subpath(0, i));
            switch (name) {
                case ".m2", ".gradle" -> {
                    String tool = name.equals(".m2") ? "Maven" : "Gradle";
                    String opts = name.equals(".m2") ? "MAVEN_OPTS" : "GRADLE_OPTS";
                    return Optional.of("; " + tool + " looks under Java's user.home (" + other + "), which the JVM takes"
                            + " from the password file, not from $HOME (" + home + "): run it as " + opts
                            + "=-Duser.home=$HOME (the java spell passes " + opts + " through) rather than allow "
                            + other.resolve(name));
                }
                case ".cargo", ".rustup" -> {
                    return Optional.of("; cargo and rustup are installed under " + other + ", not $HOME (" + home + "):"
                            + " set CARGO_HOME=" + other.resolve(".cargo") + " and RUSTUP_HOME=" + other.resolve(".rustup")
                            + " and bind the spell rust, which grants what they name and passes them through");
                }
                default -> {
                }
            }
        }
        return Optional.empty();
    }
}
