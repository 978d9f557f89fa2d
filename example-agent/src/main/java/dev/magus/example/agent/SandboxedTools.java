package dev.magus.example.agent;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.magus.events.RunEvent;
import dev.magus.events.SandboxException;
import dev.magus.orchestrator.binding.Sandbox;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunResult;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * An agent's tool set, each tool a LangChain4j {@link Tool}, all backed by one magus
 * {@link Sandbox} session: the agent reads, writes and lists files, fetches URLs and runs
 * commands under the workspace's policy, and every refusal is an MGS event on the session's
 * stream. A refused call answers the model with the refusal's line, so the agent can say why.
 */
public final class SandboxedTools {
    private static final Duration COMMAND_DEADLINE = Duration.ofMinutes(5);

    private final Sandbox session;

    public SandboxedTools(Sandbox session) {
        this.session = session;
    }

    @Tool("Reads a text file of the workspace")
    public String readFile(@P(name = "path", value = "the file's path, relative to the workspace") String path) {
        return answer(() -> new String(session.files().readAllBytes(Path.of(path)), StandardCharsets.UTF_8));
    }

    @Tool("Writes a text file, replacing its content")
    public String writeFile(@P(name = "path", value = "the file's path, relative to the workspace") String path,
            @P(name = "content", value = "the new content") String content) {
        return answer(() -> {
            session.files().write(Path.of(path), content.getBytes(StandardCharsets.UTF_8));
            return "wrote " + content.length() + " characters to " + path;
        });
    }

    @Tool("Lists a directory")
    public String listDirectory(@P(name = "path", value = "the directory's path, relative to the workspace") String path) {
        return answer(() -> session.files().list(Path.of(path)).stream().map(Path::toString).collect(Collectors.joining("\n")));
    }

    @Tool("Fetches a URL with HTTP GET and returns the body")
    public String fetchUrl(@P(name = "url", value = "an http or https URL") String url) {
        return answer(() -> {
            var r = session.http().get(URI.create(url)).block(Duration.ofSeconds(60));
            return "HTTP " + r.status() + "\n" + new String(r.body(), StandardCharsets.UTF_8);
        });
    }

    @Tool("Runs a shell command in the workspace and returns its exit status and output")
    public String runCommand(@P(name = "command", value = "the command line, run by sh -c") String command) {
        Run run = session.submit(List.of("sh", "-c", command));
        List<RunEvent> events = run.events().collectList().block(COMMAND_DEADLINE);
        RunResult result = run.result().block(COMMAND_DEADLINE);
        String output = events.stream().filter(RunEvent.Output.class::isInstance).map(e -> ((RunEvent.Output) e).line())
                .collect(Collectors.joining("\n"));
        return "exit " + result.status() + "\n" + output;
    }

    private interface Call {
        String call() throws IOException;
    }

    private static String answer(Call call) {
        try {
            return call.call();
        } catch (SandboxException e) {
            return "refused: " + e.diagnostic().code() + " " + e.diagnostic().message();
        } catch (IOException | RuntimeException e) {
            return "failed: " + e.getMessage();
        }
    }
}
