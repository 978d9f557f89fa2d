package dev.magus.landlock.launch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.sys.Capabilities;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What a parked spare must look like in {@code /proc}: no_new_privs off, hence no Landlock
 * domain (the kernel grants landlock_restrict_self only with no_new_privs or CAP_SYS_ADMIN, and
 * LaunchSequence sets no_new_privs before every restrict), and either the process's
 * capabilities or, when the launcher cuts a root child's, exactly that cut, made by the spare
 * on itself before it parked.
 */
final class ParkedSpares {
    private ParkedSpares() {
    }

    static void assertParkedSpare(int tid) throws IOException {
        List<String> process = Files.readAllLines(Path.of("/proc/self/status"));
        List<String> thread = Files.readAllLines(Path.of("/proc/self/task", Integer.toString(tid), "status"));
        assertThat(field(thread, "NoNewPrivs")).as("NoNewPrivs of spare %s", tid).isEqualTo("0");
        CapabilityDrop cut = CapabilityDrop.forProcess();
        if (!cut.active) {
            for (String caps : List.of("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")) {
                assertThat(field(thread, caps)).as("%s of spare %s", caps, tid).isEqualTo(field(process, caps));
            }
            return;
        }
        assertThat(caps(thread, "CapEff")).as("CapEff of spare %s", tid).isEqualTo(caps(process, "CapEff") & Capabilities.KEPT);
        assertThat(caps(thread, "CapPrm")).as("CapPrm of spare %s", tid).isEqualTo(caps(process, "CapPrm") & Capabilities.KEPT);
        assertThat(caps(thread, "CapInh")).as("CapInh of spare %s", tid).isZero();
        assertThat(caps(thread, "CapAmb")).as("CapAmb of spare %s", tid).isZero();
        long bounding = caps(process, "CapBnd");
        for (int dropped : cut.bounding) {
            bounding &= ~(1L << dropped);
        }
        assertThat(caps(thread, "CapBnd")).as("CapBnd of spare %s", tid).isEqualTo(bounding);
    }

    static long caps(List<String> status, String name) {
        return Long.parseUnsignedLong(field(status, name), 16);
    }

    static String field(List<String> status, String name) {
        Optional<String> line = status.stream().filter(l -> l.startsWith(name + ":")).findFirst();
        return line.map(l -> l.substring(name.length() + 1).strip()).orElse("?");
    }
}
