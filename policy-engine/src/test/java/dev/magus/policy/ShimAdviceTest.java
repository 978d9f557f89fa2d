package dev.magus.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A denied shim names the spell that makes it work, not only the shim directory. */
class ShimAdviceTest {

    @Test
    void a_pyenv_shim_names_the_python_spell() {
        assertThat(ShimAdvice.of(Path.of("/home/u/.pyenv/shims/python3"))).hasValueSatisfying(s ->
                assertThat(s).startsWith("; it is pyenv's").contains("bind the spell python in magus.yaml's projects"));
        assertThat(ShimAdvice.of(Path.of("/home/u/.nvm/versions/node/v20.1.0/bin/node")))
                .hasValueSatisfying(s -> assertThat(s).contains("bind the spell nvm"));
    }

    @Test
    void anything_else_gets_nothing_added() {
        assertThat(ShimAdvice.of(Path.of("/home/u/.pyenv/shims"))).isEmpty();
        assertThat(ShimAdvice.of(Path.of("/usr/bin/python3"))).isEmpty();
        assertThat(ShimAdvice.of(Path.of("/home/u/tools/shims/python3"))).isEmpty();
        assertThat(ShimAdvice.of(Path.of("/"))).isEmpty();
    }
}
