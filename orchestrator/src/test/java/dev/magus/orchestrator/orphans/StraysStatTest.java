package dev.magus.orchestrator.orphans;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The byte parser of /proc/PID/stat agrees with the kernel's other accounts of the same process. */
class StraysStatTest {
    @Test
    void parsesThisProcessAsProcAndTheJdkSeeIt() throws IOException {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/stat")), "skipped: no /proc here");
        long self = ProcessHandle.current().pid();
        ProcStat st = ProcStat.of(Long.toString(self), new byte[1024]).orElseThrow();
        assertThat(st.ppid()).isEqualTo(ProcessHandle.current().parent().orElseThrow().pid());
        assertThat(st.startTicks()).isEqualTo(ProcessIdentity.startTicks(self).orElseThrow());
        assertThat(st.state()).isIn('R', 'S');
        String status = Files.readString(Path.of("/proc/self/status"));
        assertThat(status).contains("PPid:\t" + st.ppid() + "\n");
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        assertThat(st.pgrp()).isEqualTo(Long.parseLong(f[2]));
        assertThat(ProcStat.of("0", new byte[1024])).isEmpty();
    }
}
