package dev.magus.cli;

import dev.magus.events.Echo;
import dev.magus.workspace.init.InitFile;
import dev.magus.workspace.init.ProjectDetector;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import dev.magus.events.Mode;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code magus init [--dry-run]}: writes a magus.yaml for the current directory, its projects
 * and their spells detected from marker files ({@link ProjectDetector}), mode best-effort,
 * every line commented ({@link InitFile}). Never overwrites: an existing magus.yaml (even a
 * dangling link of that name) is left alone and the command exits 1.
 */
@Command(name = "init", description = "Writes a magus.yaml for the current directory: its projects and their spells,"
        + " found from marker files (package.json, pom.xml, Cargo.toml, go.mod, ...), mode best-effort unless --mode."
        + " Never overwrites.")
final class InitCommand implements Callable<Integer> {
    /** The status when a magus.yaml is already there, or cannot be written. */
    static final int NOT_WRITTEN = 1;

    @Option(names = "--dry-run", description = "Prints the file instead of writing it.")
    boolean dryRun;

    @Option(names = "--mode", paramLabel = "MODE", description = "The file's sandbox.mode: off, best-effort (the default) or required.")
    String mode = Mode.BEST_EFFORT.spelling();

    @Spec
    CommandSpec spec;

    private final CliContext context;

    InitCommand() {
        this(CliContext.system());
    }

    InitCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path cwd = context.cwd().get();
        Path file = cwd.resolve("magus.yaml");
        Mode chosen;
        try {
            chosen = Mode.parse(mode, "--mode");
        } catch (dev.magus.events.SandboxException e) {
            err.println(HumanLines.line(e.diagnostic()));
            err.flush();
            return ExitCodes.REFUSED;
        }
        if (!dryRun && Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            err.println("magus: " + Echo.visible(file.toString()) + " already exists; magus init never overwrites it"
                    + " (edit it, or remove it and run magus init again; --dry-run prints what it would write)");
            err.flush();
            return NOT_WRITTEN;
        }
        List<ProjectDetector.Project> projects = ProjectDetector.detect(cwd);
        String text = InitFile.render(projects, chosen);
        if (dryRun) {
            out.print(text);
            out.flush();
            return 0;
        }
        try {
            // CREATE_NEW: a file that appeared since the check above is not overwritten either.
            Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        } catch (FileAlreadyExistsException e) {
            err.println("magus: " + Echo.visible(file.toString()) + " already exists; magus init never overwrites it");
            err.flush();
            return NOT_WRITTEN;
        } catch (IOException e) {
            err.println("magus: cannot write " + Echo.visible(file.toString()) + ": " + e.getMessage());
            err.flush();
            return NOT_WRITTEN;
        }
        try {
            // The file magus wrote for this person is theirs: it needs no 'magus trust'.
            dev.magus.orchestrator.run.Host host = context.host().get();
            dev.magus.workspace.trust.TrustStore.of(host.env(), host.home()).trust(file);
        } catch (IOException | RuntimeException e) {
            err.println("magus: note: could not trust " + Echo.visible(file.toString()) + " (" + e.getMessage()
                    + "); 'magus trust' does it");
        }
        String found = projects.stream().map(p -> p.dir() + (p.spells().isEmpty() ? "" : " (" + String.join(", ", p.spells()) + ")"))
                .collect(Collectors.joining(", "));
        err.println("magus: wrote " + Echo.visible(file.toString()) + ", mode " + chosen.spelling() + ", " + projects.size()
                + (projects.size() == 1 ? " project: " : " projects: ") + Echo.visible(found)
                + "; 'magus policy' shows what it grants");
        enclosing(cwd).ifPresent(outer -> err.println("magus: note: " + Echo.visible(cwd.toString())
                + " was inside the workspace of " + Echo.visible(outer.toString()) + "; it is now a workspace of its own"));
        err.flush();
        return 0;
    }

    /** The magus.yaml of an enclosing workspace, if this directory was inside one. */
    private static Optional<Path> enclosing(Path cwd) {
        for (Path d = cwd.getParent(); d != null; d = d.getParent()) {
            if (Files.exists(d.resolve("magus.yaml"), LinkOption.NOFOLLOW_LINKS)) {
                return Optional.of(d.resolve("magus.yaml"));
            }
        }
        return Optional.empty();
    }
}
