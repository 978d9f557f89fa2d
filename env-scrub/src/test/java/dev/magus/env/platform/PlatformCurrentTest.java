package dev.magus.env.platform;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

/** {@link Platform#current()} remembers its last mapping by the exact {@code os.name}, and follows a change of it. */
class PlatformCurrentTest {
    @Test
    @ResourceLock(Resources.SYSTEM_PROPERTIES)
    void followsTheProperty() {
        String real = System.getProperty("os.name");
        try {
            assertThat(Platform.current()).isEqualTo(Platform.fromOsName(real));
            System.setProperty("os.name", "Mac OS X");
            assertThat(Platform.current()).isEqualTo(Platform.MACOS);
            System.setProperty("os.name", "Windows 11");
            assertThat(Platform.current()).isEqualTo(Platform.OTHER);
            System.setProperty("os.name", "Linux");
            assertThat(Platform.current()).isEqualTo(Platform.LINUX);
        } finally {
            System.setProperty("os.name", real);
        }
        assertThat(Platform.current()).isEqualTo(Platform.fromOsName(real));
    }
}
