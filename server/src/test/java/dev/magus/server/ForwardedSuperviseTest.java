package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.RunEvent;
import dev.magus.landlock.supervise.Support;
import dev.magus.orchestrator.Orchestrator;
import dev.magus.orchestrator.run.Passthrough;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.orchestrator.run.Submission;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A forwarded {@code --supervise} run is supervised by the server, over a real Unix socket with a
 * real confined child: a read of a key whose refusal the child keeps to itself is reported as the
 * supervisor's exact MGS2001, with the line, bytes and status a local supervised run gives.
 */
class ForwardedSuperviseTest {
    private static final String SILENT = "cat \"$HOME/.ssh/id_rsa\" 2>/dev/null; echo $?";

    @TempDir
    Path root;
    Fixture f;
    Path key;

    @BeforeEach
    void start() throws Exception {
        Support support = Support.probe();
        if (!support.available()) {
            System.err.println("forwarded --supervise test skipped: " + support.reason());
        }
        Assumptions.assumeTrue(support.available(), () -> "forwarded --supervise test skipped: " + support.reason());
        f = new Fixture(root);
        f.yaml("sandbox:\n  mode: required\n");
        key = Files.writeString(Files.createDirectories(f.home.resolve(".ssh")).resolve("id_rsa"),
                "-----BEGIN OPENSSH PRIVATE KEY-----\n");
    }

    @AfterEach
    void stop() {
        if (f != null) {
            f.close();
        }
    }

    /** A run in this process, as {@code magus run --local} runs it: its bytes, magus's lines after them, its status. */
    record Local(String out, String err, int status) {
    }

    private Local local(boolean supervise) {
        RunRequest request = RunRequest.builder(f.workspace, List.of("sh", "-c", SILENT)).supervise(supervise).build();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        try (Orchestrator o = Orchestrator.builder(f.host()).services(f.services).build()) {
            Run run = o.submit(Submission.of(request).withPassthrough(Passthrough.of(out, err)));
            run.events().subscribe(e -> {
                if (e instanceof RunEvent.Diag d) {
                    Fixture.LINES.diagnostic(d.diagnostic(), false, false).ifPresent(lines::add);
                }
            });
            RunResult result = run.result().block(Duration.ofSeconds(60));
            return new Local(out.toString(StandardCharsets.UTF_8),
                    err.toString(StandardCharsets.UTF_8) + lines.stream().map(l -> l + "\n").reduce("", String::concat),
                    result.status());
        }
    }

    @Test
    void aSilentReadOfAKeyIsTheSupervisorsMgs2001AsALocalRunSaysIt() throws Exception {
        Fixture.Result forwarded = f.forward(f.run(f.env, List.of("--supervise"), "sh", "-c", SILENT));
        String err = new String(forwarded.stderr(), StandardCharsets.UTF_8);

        // The child still gets its refusal: cat fails, and says nothing.
        assertThat(forwarded.out()).isEqualTo("1\n");
        assertThat(forwarded.status()).isZero();
        assertThat(err.lines().toList()).singleElement().satisfies(l -> assertThat(l).startsWith("magus: MGS2001 ")
                .contains(".ssh/id_rsa").contains(" [supervisor]"));

        Local local = local(true);
        assertThat(forwarded.out()).isEqualTo(local.out());
        assertThat(err).isEqualTo(local.err());
        assertThat(forwarded.status()).isEqualTo(local.status());
    }

    @Test
    void withoutSuperviseTheSameForwardedRunReportsNothing() throws Exception {
        Fixture.Result forwarded = f.forward(f.run("sh", "-c", SILENT));
        assertThat(forwarded.out()).isEqualTo("1\n");
        assertThat(forwarded.status()).isZero();
        assertThat(forwarded.codes()).doesNotContain("MGS2001");
        assertThat(new String(forwarded.stderr(), StandardCharsets.UTF_8)).isEmpty();
        Local local = local(false);
        assertThat(local.err()).isEmpty();
        assertThat(local.out()).isEqualTo(forwarded.out());
    }
}
