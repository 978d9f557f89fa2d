package dev.magus.orchestrator.orphans;

import dev.magus.events.MagusEnv;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** What the stray collection reads of a process in {@code /proc}: its stat line, and its run id. */
record ProcStat(char state, long ppid, long pgrp, long startTicks) {
    private static final String RUN_ID = MagusEnv.RUN_ID + "=";

    /**
     * {@code /proc/<pid>/stat}, read into {@code buf} (one open, read and close; no String):
     * a pass reads one per process on the host, at every run's end.
     */
    static Optional<ProcStat> of(String pid, byte[] buf) {
        int n;
        try (java.io.FileInputStream in = new java.io.FileInputStream("/proc/" + pid + "/stat")) {
            n = in.readNBytes(buf, 0, buf.length);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        // The command name (field 2) may hold spaces and parentheses: count after the last ')'.
        int i = n - 1;
        while (i >= 0 && buf[i] != ')') {
            i--;
        }
        if (i < 0 || i + 3 >= n) {
            return Optional.empty();
        }
        char state = (char) buf[i + 2];
        long[] f = new long[20];
        int field = 0;
        int at = i + 4;
        // Fields after the state: ppid, pgrp, ..., starttime (field 22) is the 20th.
        while (field < 20 && at < n) {
            long v = 0;
            boolean negative = buf[at] == '-';
            if (negative) {
                at++;
            }
            while (at < n && buf[at] >= '0' && buf[at] <= '9') {
                v = v * 10 + (buf[at++] - '0');
            }
            f[field++] = negative ? -v : v;
            at++;
        }
        return field == 20 ? Optional.of(new ProcStat(state, f[0], f[1], f[18])) : Optional.empty();
    }

    /** The value of {@code MAGUS_RUN_ID} in the environment the process started with, if it has one. */
    static Optional<String> runIdOf(Path environ) {
        byte[] env;
        try {
            env = Files.readAllBytes(environ);
        } catch (IOException e) {
            return Optional.empty();
        }
        byte[] key = RUN_ID.getBytes(StandardCharsets.US_ASCII);
        int start = 0;
        for (int i = 0; i <= env.length; i++) {
            if (i == env.length || env[i] == 0) {
                if (i - start >= key.length && java.util.Arrays.equals(env, start, start + key.length, key, 0, key.length)) {
                    return Optional.of(new String(env, start + key.length, i - start - key.length, StandardCharsets.UTF_8));
                }
                start = i + 1;
            }
        }
        return Optional.empty();
    }
}
