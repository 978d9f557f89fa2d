package dev.magus.orchestrator;

import static dev.magus.orchestrator.TestHost.DEADLINE;
import static dev.magus.orchestrator.TestHost.events;
import static dev.magus.orchestrator.TestHost.lines;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fresh home: the caches a bound spell names are made before the run so that the kernel can
 * grant them (Landlock grants only what exists), and the credential files beside them stay out,
 * even where the cache's parent was made for the run.
 */
class SpellCachesInRunsTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root);
        t.yaml("sandbox:\n  mode: required\nprojects:\n  - {dir: ., spells: [java]}\n");
    }

    private List<RunEvent> run(String script) {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", script).build());
        List<RunEvent> events = events(run);
        run.result().block(DEADLINE);
        return events;
    }

    private static List<Diagnostic> diagnostics(List<RunEvent> events) {
        return events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic()).toList();
    }

    @Test
    void gradlesCachesAndWrapperAreMadeForAFreshHomeAndGradlePropertiesStaysOut() throws IOException {
        Path gradle = t.home.resolve(".gradle");
        Files.writeString(t.workspace.resolve("build.gradle"), "");
        assertThat(gradle).doesNotExist();
        List<RunEvent> events = run("echo ok > \"$HOME/.gradle/caches/probe\" && echo CACHES;"
                + " echo ok > \"$HOME/.gradle/wrapper/probe\" && echo WRAPPER;"
                + " echo org.gradle.jvmargs=planted > \"$HOME/.gradle/gradle.properties\" && echo PLANTED; true");
        assertThat(lines(events, RunEvent.Stream.STDOUT)).as("%s", TestHost.text(events)).containsExactly("CACHES", "WRAPPER");
        assertThat(gradle.resolve("caches/probe")).hasContent("ok");
        assertThat(gradle.resolve("wrapper/probe")).hasContent("ok");
        // ~/.gradle itself was made as the caches' parent, and granted nothing: no planted properties file.
        assertThat(gradle.resolve("gradle.properties")).doesNotExist();
        assertThat(diagnostics(events)).anySatisfy(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(d.subject()).endsWith(".gradle/gradle.properties");
        });

        // An existing one, holding a credential, is refused by the kernel.
        Files.writeString(gradle.resolve("gradle.properties"), "mavenPassword=secret\n");
        List<RunEvent> read = run("cat \"$HOME/.gradle/gradle.properties\" && echo LEAKED; true");
        assertThat(TestHost.text(read)).doesNotContain("secret").doesNotContain("LEAKED");
        assertThat(diagnostics(read)).anySatisfy(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2001);
            assertThat(d.subject()).endsWith(".gradle/gradle.properties");
        });
    }

    @Test
    void onlyTheCachesOfTheToolsTheProjectsMarkersNameAreMade() throws IOException {
        // A Maven project: its repository is made, Gradle's home is not (the java spell knows both).
        Files.writeString(t.workspace.resolve("pom.xml"), "<project/>");
        run("true");
        assertThat(t.home.resolve(".m2/repository")).isDirectory();
        assertThat(t.home.resolve(".gradle")).doesNotExist();
    }
}
