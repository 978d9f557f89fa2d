package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.assumeLandlock;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A one-shot launcher ({@link Launcher#oneShot()}) spawns no warm-up children, and is still
 * safe: in a fresh JVM ({@link NoWarmUpProbe}) every launch path works under a domain that
 * denies the class path (so a class first loaded on a launch thread from there would fail),
 * and afterwards no thread but the probe's own control has no_new_privs: neither JNA's
 * cleaner, nor the process reaper, nor a Reactor worker was started inside a domain.
 */
class NoWarmUpTest {
    @TempDir
    Path dir;

    @Test
    void everyLaunchPathWorksWithoutWarmUpAndNoHelperThreadIsConfined() throws Exception {
        assumeLandlock();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path")));
        for (String p : List.of("jna.boot.library.path", "jna.nosys", "jna.nounpack", "java.io.tmpdir")) {
            if (System.getProperty(p) != null) {
                command.add("-D" + p + "=" + System.getProperty(p));
            }
        }
        command.addAll(List.of(NoWarmUpProbe.class.getName(), dir.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("launch threads before any spawn: 0\n");
        for (String via : List.of("spare", "fresh")) {
            for (Stdio stdio : Stdio.Standard.values()) {
                assertThat(out).contains(via + " true " + stdio + " 0\n");
            }
            assertThat(out).contains(via + " script 0 via-shell\n", via + " missing 127\n",
                    via + " class path 0 denied\n");
        }
        assertThat(out).contains("shared 0\n", "process reaper 0\n", "boundedElastic boundedElastic-");
        String threads = line(out, "threads ");
        assertThat(threads).contains("JNA Cleaner", "process reaper", "boundedElastic", "nnp-control");
        assertThat(line(out, "no_new_privs ")).as(out).isEqualTo("[nnp-control]");
    }

    private static String line(String out, String prefix) {
        return out.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length())).findFirst().orElse("");
    }
}
