package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.assumeLandlock;
import static dev.magus.landlock.launch.Children.env;
import static dev.magus.landlock.launch.Children.rule;
import static dev.magus.landlock.launch.Children.sh;
import static dev.magus.landlock.launch.Children.systemPlus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.compile.CompiledRuleset;
import dev.magus.landlock.sys.Landlock;
import dev.magus.policy.fs.AccessMode;
import dev.magus.events.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** From mode and host to how children run; fake hosts for ABI 0-3, the real kernel for what each ABI enforces. */
class ConfinementTest {
    @TempDir
    Path root;

    @Test
    void requiredOnAnAbi2HostIsRefusedBeforeAnythingIsCompiled() {
        assertThatThrownBy(() -> Confinement.prepare(Mode.REQUIRED, List.of(), LandlockProbe.fixed(2)))
                .isInstanceOf(SandboxException.class)
                .satisfies(e -> assertThat(((SandboxException) e).code()).isEqualTo(Code.MGS2012));
        assertThatThrownBy(() -> Confinement.prepare(Mode.REQUIRED, List.of(), LandlockProbe.fixed(0)))
                .isInstanceOf(SandboxException.class);
    }

    @Test
    void bestEffortWithoutLandlockRunsUnconfinedWithMgs2005() {
        try (Confinement c = Confinement.prepare(Mode.BEST_EFFORT, List.of(), LandlockProbe.fixed(0))) {
            assertThat(c).isInstanceOf(Confinement.None.class);
            assertThat(c.warning().orElseThrow().code()).isEqualTo(Code.MGS2005);
        }
    }

    @Test
    void offNeverProbes() {
        LandlockProbe exploding = () -> {
            throw new AssertionError("mode off must not probe");
        };
        try (Confinement c = Confinement.prepare(Mode.OFF, List.of(), exploding)) {
            assertThat(c).isInstanceOf(Confinement.None.class);
            assertThat(c.warning()).isEmpty();
        }
    }

    @Test
    void aRulesetForAbi1HandlesOnlyAbi1Rights() {
        assumeLandlock();
        try (Confinement c = Confinement.prepare(Mode.BEST_EFFORT, systemPlus(rule(root, AccessMode.RWX)), LandlockProbe.fixed(1))) {
            CompiledRuleset r = ((Confinement.Kernel) c).ruleset();
            assertThat(r.abi()).isEqualTo(1);
            assertThat(r.handledFs() & (Landlock.REFER | Landlock.TRUNCATE | Landlock.IOCTL_DEV)).isZero();
            assertThat(r.scoped()).isZero();
            assertThat(c.warning().orElseThrow().message()).contains("truncate");
        }
    }

    /** What MGS2005 says at ABI 2 is true: the same read-only file, truncated under an ABI 2 ruleset, refused under ABI 3. */
    @Test
    void truncateIsNotEnforcedAtAbi2AndIsAtAbi3() throws IOException {
        int abi = assumeLandlock();
        if (!(abi >= 3)) {
            System.err.println("SKIP ConfinementTest: " + "needs a kernel with ABI 3 to compare");
        }
        Assumptions.assumeTrue(abi >= 3, "needs a kernel with ABI 3 to compare");
        boolean perl = Files.isExecutable(Path.of("/usr/bin/perl"));
        if (!perl) {
            System.err.println("skipped: truncate(2) by path needs /usr/bin/perl");
        }
        if (!(perl)) {
            System.err.println("SKIP ConfinementTest: " + "truncate(2) by path needs /usr/bin/perl");
        }
        Assumptions.assumeTrue(perl, "truncate(2) by path needs /usr/bin/perl");
        Path ro = Files.createDirectories(root.resolve("ro"));
        Path ws = Files.createDirectories(root.resolve("ws"));
        Path data = Files.writeString(ro.resolve("data"), "keep\n");
        String script = "perl -e 'truncate(\"" + data + "\", 0) or exit 3'";
        var rules = systemPlus(rule(ws, AccessMode.RWX), rule(ro, AccessMode.R));
        try (Confinement v3 = Confinement.prepare(Mode.BEST_EFFORT, rules, LandlockProbe.fixed(3))) {
            assertThat(sh(v3, ws, env(root), script).status()).isEqualTo(3);
            assertThat(data).hasContent("keep");
        }
        try (Confinement v2 = Confinement.prepare(Mode.BEST_EFFORT, rules, LandlockProbe.fixed(2))) {
            assertThat(v2.warning().orElseThrow().message()).startsWith("truncate");
            sh(v2, ws, env(root), script).assertOk();
            assertThat(data).isEmptyFile();
        }
    }

    @Test
    void aChildRunsInASessionOfItsOwnWithoutATerminal() throws IOException {
        assumeLandlock();
        Path ws = Files.createDirectories(root.resolve("ws"));
        try (Confinement c = Confinement.prepare(Mode.REQUIRED, systemPlus(rule(ws, AccessMode.RWX)), LandlockProbe.kernel())) {
            String stat = sh(c, ws, env(root), "cat /proc/self/stat; echo; echo $$").assertOk().out();
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // After ")": state ppid pgrp session tty_nr ...; cat's session and group are the sh's, which leads them.
            String shPid = stat.lines().reduce((a, b) -> b).orElseThrow().strip();
            assertThat(f[2]).isEqualTo(shPid);
            assertThat(f[3]).isEqualTo(shPid);
            assertThat(f[4]).isEqualTo("0");
        }
    }

    @Test
    void anInteractiveChildStaysInMagussSessionAndInheritsItsDescriptors() throws IOException {
        assumeLandlock();
        Path ws = Files.createDirectories(root.resolve("ws"));
        String mine = Files.readString(Path.of("/proc/self/stat"));
        String[] self = mine.substring(mine.lastIndexOf(')') + 2).split(" ");
        try (Confinement c = Confinement.prepare(Mode.REQUIRED, systemPlus(rule(ws, AccessMode.RWX)), LandlockProbe.kernel())) {
            SpawnRequest req = new SpawnRequest(Children.SH, List.of("sh", "-c", "cat /proc/self/stat > stat"), env(root), ws, Stdio.INHERIT);
            Spawn s = Launcher.get().spawn(req, c);
            Child child = ((Spawn.Started) s).child();
            assertThat(child.waitFor().status()).isZero();
            String stat = Files.readString(ws.resolve("stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            assertThat(f[3]).as("session").isEqualTo(self[3]);
            child.close();
        }
    }
}
