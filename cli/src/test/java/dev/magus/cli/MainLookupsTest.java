package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Main#lookupsNotMade()}: the properties that keep picocli and SLF4J from searching the
 * whole class path on every command line, set only where the caller has not set them, and naming
 * a provider that exists (a wrong name would make SLF4J say so on stderr and search anyway).
 */
class MainLookupsTest {
    private static final List<String> KEYS = List.of("picocli.disable.closures", "slf4j.provider", "slf4j.internal.verbosity");
    private Properties saved;

    @BeforeEach
    void save() {
        saved = (Properties) System.getProperties().clone();
        KEYS.forEach(System::clearProperty);
    }

    @AfterEach
    void restore() {
        System.setProperties(saved);
    }

    @Test
    void setsWhatTheCallerLeftUnset() {
        Main.lookupsNotMade();

        assertThat(System.getProperty("picocli.disable.closures")).isEqualTo("true");
        assertThat(System.getProperty("slf4j.provider")).isEqualTo("org.slf4j.simple.SimpleServiceProvider");
        // SLF4J's "named provider" line is an info line: only warnings and errors are reported.
        assertThat(System.getProperty("slf4j.internal.verbosity")).isEqualTo("WARN");
    }

    @Test
    void aValueGivenWithMinusDWins() {
        System.setProperty("slf4j.provider", "org.example.OtherProvider");
        System.setProperty("picocli.disable.closures", "false");

        Main.lookupsNotMade();

        assertThat(System.getProperty("slf4j.provider")).isEqualTo("org.example.OtherProvider");
        assertThat(System.getProperty("picocli.disable.closures")).isEqualTo("false");
    }

    @Test
    void theNamedProviderIsOnTheClassPathAndIsAnSlf4jProvider() throws ClassNotFoundException {
        Main.lookupsNotMade();

        Class<?> provider = Class.forName(System.getProperty("slf4j.provider"), false, Main.class.getClassLoader());

        assertThat(Arrays.stream(provider.getInterfaces()).map(Class::getName))
                .contains("org.slf4j.spi.SLF4JServiceProvider");
    }
}
