package dev.magus.landlock.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NativesTest {

    @Test
    void initPinsJnasCleanerSoItIsNeverRestartedByALaunchThread() {
        boolean linux = System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("linux");
        String why = "skipped: the natives are Linux/glibc only";
        if (!linux) {
            System.err.println(why);
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(linux, why);
        Natives.require();
        assertThat(Natives.pinned()).isTrue();
        assertThat(Natives.glibcVersion()).startsWith("glibc 2.");
        assertThat(Thread.getAllStackTraces().keySet())
                .anyMatch(t -> t.getName().equals("JNA Cleaner") && t.isAlive());
    }

    @Test
    void errnoNamesAndMessagesComeFromTheCLibrary() {
        boolean linux = System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("linux");
        org.junit.jupiter.api.Assumptions.assumeTrue(linux, "skipped: the natives are Linux/glibc only");
        Syscalls sys = Natives.require();
        assertThat(sys.available()).isTrue();
        assertThat(sys.unavailableReason()).isEmpty();
        // The names the launcher's decisions and diagnostics use, now from glibc rather than a table.
        assertThat(Errno.name(Errno.ENOENT)).isEqualTo("ENOENT");
        assertThat(Errno.name(Errno.EACCES)).isEqualTo("EACCES");
        assertThat(Errno.name(Errno.ELOOP)).isEqualTo("ELOOP");
        assertThat(Errno.name(Errno.E2BIG)).isEqualTo("E2BIG");
        assertThat(Errno.name(Errno.ENOEXEC)).isEqualTo("ENOEXEC");
        assertThat(Errno.describe(Errno.ENOENT)).startsWith("ENOENT (").endsWith(")");
        assertThat(sys.strerror(Errno.ENOENT)).isNotBlank();
        assertThat(Errno.name(4242)).isEqualTo("errno 4242");
        assertThat(Errno.describe(4242)).startsWith("errno 4242");
    }

    @Test
    void theUnsupportedImplementationSaysWhyProbesNoLandlockAndRefusesEveryOtherCall() {
        Syscalls none = new UnsupportedSyscalls("not here: a test");
        assertThat(none.available()).isFalse();
        assertThat(none.unavailableReason()).isEqualTo("not here: a test");
        assertThat(none.landlockAbiVersion()).isEqualTo(-Errno.ENOSYS);
        assertThat(none.describe(Errno.ENOENT)).isEqualTo("errno 2");
        assertThatThrownBy(() -> none.close(3)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessage("not here: a test");
        assertThatThrownBy(() -> none.landlockRestrictSelf(3, 0)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> none.posix_spawn(null, null, null, null, null, null))
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
