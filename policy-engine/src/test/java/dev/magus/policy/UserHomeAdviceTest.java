package dev.magus.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A denial under another home's .m2 or .gradle names user.home and the one-line fix. */
class UserHomeAdviceTest {
    private static final Path HOME = Path.of("/tmp/fake-home");

    @Test
    void mavenAndGradleUnderThePasswordFilesHomeNameTheFix() {
        assertThat(UserHomeAdvice.of(Path.of("/home/me/.m2/repository/org/x.jar"), HOME)).hasValueSatisfying(s -> assertThat(s)
                .contains("Maven looks under Java's user.home (/home/me)").contains("MAVEN_OPTS=-Duser.home=$HOME")
                .contains("$HOME (/tmp/fake-home)"));
        assertThat(UserHomeAdvice.of(Path.of("/home/me/.gradle/caches/x"), HOME)).hasValueSatisfying(s -> assertThat(s)
                .contains("Gradle").contains("GRADLE_OPTS=-Duser.home=$HOME"));
    }

    @Test
    void cargoAndRustupUnderAnotherHomeNameTheirVariables() {
        assertThat(UserHomeAdvice.of(Path.of("/root/.cargo/bin/rustup"), HOME)).hasValueSatisfying(s -> assertThat(s)
                .contains("CARGO_HOME=/root/.cargo").contains("RUSTUP_HOME=/root/.rustup").contains("spell rust"));
        assertThat(UserHomeAdvice.of(Path.of("/root/.rustup/toolchains/x/bin/rustc"), HOME)).hasValueSatisfying(s -> assertThat(s)
                .contains("CARGO_HOME=/root/.cargo").contains("RUSTUP_HOME=/root/.rustup"));
    }

    @Test
    void theRunsOwnHomeAndOtherPathsSayNothing() {
        assertThat(UserHomeAdvice.of(HOME.resolve(".m2/repository/x"), HOME)).isEmpty();
        assertThat(UserHomeAdvice.of(Path.of("/home/me/.cache/x"), HOME)).isEmpty();
        assertThat(UserHomeAdvice.of(Path.of("/"), HOME)).isEmpty();
    }
}
