package dev.magus.landlock.sys;

import static org.assertj.core.api.Assertions.assertThat;

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
        Natives.init();
        assertThat(Natives.pinned()).isTrue();
        assertThat(Natives.glibcVersion()).startsWith("glibc 2.");
        assertThat(Thread.getAllStackTraces().keySet())
                .anyMatch(t -> t.getName().equals("JNA Cleaner") && t.isAlive());
    }
}
