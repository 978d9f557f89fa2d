package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.run.Host;
import dev.magus.workspace.quarantine.Quarantine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code magus quarantine …} round trips on a quarantine kept the way the audit keeps it, under a fake home. */
class QuarantineCommandTest {
    @TempDir
    Path dir;
    Path ws;
    Host host;

    @BeforeEach
    void setUp() throws IOException {
        dir = dir.toRealPath();
        ws = Files.createDirectories(dir.resolve("ws"));
        host = Cli.fakeHost(dir, Map.of("XDG_STATE_HOME", dir.resolve("xdg-state").toString()));
    }

    private Cli.Result run(String... args) {
        return Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), args);
    }

    /** What the audit does with a hook the run planted: kept, then removed. */
    private Path planted(String runId) throws IOException {
        Path hook = Files.createDirectories(ws.resolve(".git/hooks")).resolve("pre-commit");
        Files.writeString(hook, "#!/bin/sh\nplanted\n");
        Files.setAttribute(hook, "unix:mode", 0751);
        Quarantine.Box box = Quarantine.in(host.stateDir()).box(runId);
        Quarantine.Prepared p = box.keep(hook);
        Files.delete(hook);
        box.record(p, "MGS2002", "created", "");
        return hook;
    }

    @Test
    void listShowRestoreDrop() throws IOException {
        Path hook = planted("00aa11bb22cc33dd");
        Cli.Result list = run("quarantine", "list");
        assertThat(list.status()).as(list.err()).isZero();
        assertThat(list.out()).contains("RUN", "00aa11bb22cc33dd");
        Cli.Result show = run("quarantine", "show", "00aa11bb22cc33dd");
        assertThat(show.out()).contains("MGS2002", hook.toString(), "magus quarantine restore 00aa11bb22cc33dd");

        Cli.Result restored = run("quarantine", "restore", "00aa11bb22cc33dd", "1");
        assertThat(restored.status()).as(restored.err()).isZero();
        assertThat(restored.out()).contains("restored 00aa11bb22cc33dd/1 " + hook);
        assertThat(Files.readString(hook)).isEqualTo("#!/bin/sh\nplanted\n");
        assertThat(((Integer) Files.getAttribute(hook, "unix:mode")) & 07777).isEqualTo(0751);

        // Now the path is no longer what the audit left (absent): a second restore refuses, --force overwrites.
        Files.writeString(hook, "mine\n");
        Cli.Result refused = run("quarantine", "restore", "00aa11bb22cc33dd");
        assertThat(refused.status()).isEqualTo(1);
        assertThat(refused.err()).contains("not restored", "--force");
        assertThat(Files.readString(hook)).isEqualTo("mine\n");
        assertThat(run("quarantine", "restore", "--force", "00aa11bb22cc33dd").status()).isZero();
        assertThat(Files.readString(hook)).isEqualTo("#!/bin/sh\nplanted\n");

        assertThat(run("quarantine", "drop", "00aa11bb22cc33dd").out()).contains("dropped 00aa11bb22cc33dd");
        assertThat(run("quarantine", "list").out()).contains("the quarantine is empty");
    }

    @Test
    void pruneBySizeAndAnUnknownRun() throws IOException {
        planted("r1");
        Cli.Result pruned = run("quarantine", "prune", "--max-mb", "0");
        assertThat(pruned.status()).as(pruned.err()).isZero();
        assertThat(pruned.out()).contains("dropped r1");
        Cli.Result unknown = run("quarantine", "show", "nope");
        assertThat(unknown.status()).isEqualTo(125);
        assertThat(unknown.err()).contains("MGS2004", "holds nothing of run nope");
        assertThat(run("quarantine", "show", "../etc").status()).isEqualTo(125);
    }

    @Test
    void explainSaysHowToGetItBack() {
        Cli.Result r = run("explain", "MGS2002");
        assertThat(r.status()).isZero();
        assertThat(r.out()).contains("quarantine", "magus quarantine restore RUN N", "--force", "key by key");
    }
}
