package dev.magus.landlock.denials;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Test-only stand-in for the project's launcher: runs a command confined by Landlock through
 * {@code confine.py} (Python ctypes), so the tests see what a really confined child prints
 * and what the kernel really audits.
 */
public final class Confinement {
    private static final List<String> SYSTEM_RX = List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32");
    private static final List<String> SYSTEM_R = List.of("/etc", "/proc", "/sys");
    private static final List<String> DEVICES = List.of("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom");

    private static volatile Path script;

    private Confinement() {
    }

    /** The Python that runs the helper: the system one when present (it lives under /usr). */
    public static Optional<String> python() {
        if (Files.isExecutable(Path.of("/usr/bin/python3"))) {
            return Optional.of("/usr/bin/python3");
        }
        return which("python3").map(Path::toString);
    }

    public static Optional<Path> which(String tool) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : path.split(":")) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, tool);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** The running kernel's Landlock ABI as the helper sees it; 0 when unavailable or no Python. */
    public static int abi() {
        Optional<String> py = python();
        if (py.isEmpty() || !System.getProperty("os.name").startsWith("Linux")) {
            return 0;
        }
        try {
            Process p = new ProcessBuilder(py.get(), script().toString(), "--abi").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            p.waitFor(30, TimeUnit.SECONDS);
            return out.matches("\\d+") ? Integer.parseInt(out) : 0;
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    /** The helper script, copied out of the test class path once. */
    public static synchronized Path script() {
        if (script == null) {
            try (InputStream in = Confinement.class.getResourceAsStream("confine.py")) {
                Path tmp = Files.createTempFile("magus-confine", ".py");
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                tmp.toFile().deleteOnExit();
                script = tmp;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return script;
    }

    /**
     * The command line that runs {@code argv} confined to the system footprint, the given
     * read-write-exec workspace and the extra grants ({@code "rx:/opt/x"} style).
     */
    public static List<String> command(Path workspace, List<String> extraGrants, List<String> argv) {
        List<String> cmd = new ArrayList<>();
        cmd.add(python().orElseThrow());
        cmd.add(script().toString());
        SYSTEM_RX.forEach(p -> grant(cmd, "rx", p));
        SYSTEM_R.forEach(p -> grant(cmd, "r", p));
        DEVICES.forEach(p -> grant(cmd, "rw", p));
        grant(cmd, "rwx", workspace.toString());
        for (String g : extraGrants) {
            int colon = g.indexOf(':');
            grant(cmd, g.substring(0, colon), g.substring(colon + 1));
        }
        cmd.add("--");
        cmd.addAll(argv);
        return cmd;
    }

    private static void grant(List<String> cmd, String mode, String path) {
        cmd.add("--" + mode);
        cmd.add(path);
    }

    /** What a finished confined child printed. */
    public record Output(int status, List<String> stdout, List<String> stderr) {
    }

    private static List<String> lines(Path file) throws IOException {
        return new String(Files.readAllBytes(file), StandardCharsets.UTF_8).lines().toList();
    }

    /** Runs a prepared process to completion, each stream captured to a file. */
    public static Output run(ProcessBuilder pb, Path scratch, Map<String, String> env) {
        try {
            Path out = Files.createTempFile(scratch, "out", ".txt");
            Path err = Files.createTempFile(scratch, "err", ".txt");
            pb.environment().putAll(env);
            pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            pb.redirectOutput(out.toFile()).redirectError(err.toFile());
            Process p = pb.start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("confined child did not finish: " + pb.command());
            }
            return new Output(p.exitValue(), lines(out), lines(err));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
