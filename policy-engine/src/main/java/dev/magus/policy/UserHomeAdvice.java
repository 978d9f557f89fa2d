package dev.magus.policy;

import java.nio.file.Path;
import java.util.Optional;

/**
 * What a denial under another home's tool directory adds to its line, when the tool found that
 * home by a rule of its own rather than by {@code $HOME}:
 * <ul>
 *   <li>Maven and Gradle look under Java's {@code user.home}, which the JVM takes from the password
 *       file: where it differs from {@code $HOME} (a fake or moved {@code HOME}), the build reads
 *       the password file's {@code .m2} or {@code .gradle}, outside every rule. The fix hands
 *       {@code $HOME} to the JVM through the variable the java spell lets through.</li>
 *   <li>cargo and rustup installed under another home ({@code ~/.cargo/bin} on {@code PATH} from
 *       the real home): the rust spell grants what {@code CARGO_HOME} and {@code RUSTUP_HOME} name,
 *       else {@code $HOME}'s; the fix names both, so rustup finds its toolchains too (allowing
 *       the binary alone leaves it with "no default is configured").</li>
 * </ul>
 * Never a grant of the other home: it holds that home's credentials beside its caches.
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
