package dev.magus.server.lifecycle;

import dev.magus.server.socket.SocketDir;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts {@code magus server} as a process of its own, away from the caller's terminal and
 * session ({@code setsid}), in the socket directory, its output in {@value #LOG} there: through
 * {@code bin/magus} (the {@code magus.launcher} property), which picks the server's JVM flags,
 * else this JVM's command and class path.
 */
public final class ServerProcess {
    public static final String LOG = "server.log";
    private static final String SETSID = "/usr/bin/setsid";

    private ServerProcess() {
    }

    /**
     * @param detach true: {@code setsid -f}, which forks, so that the server is nobody's child
     *               here (a client that runs its own run next, and may collect that run's strays,
     *               never holds it) and the returned process ends at once; false: the returned
     *               process is the server's own
     */
    public static Process spawn(SocketDir dir, List<String> args, boolean detach) throws IOException {
        List<String> command = new ArrayList<>();
        if (new File(SETSID).canExecute()) {
            command.add(SETSID);
            if (detach) {
                command.add("-f");
            }
        }
        String launcher = System.getProperty("magus.launcher");
        if (launcher != null) {
            command.add(launcher);
        } else {
            command.add(ProcessHandle.current().info().command().orElse("java"));
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.magus.cli.Main"));
        }
        command.add("server");
        command.addAll(args);
        File log = dir.dir().resolve(LOG).toFile();
        // In the socket directory, not the caller's: a server that lives on keeps no project directory busy.
        return new ProcessBuilder(command).directory(dir.dir().toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(log).redirectErrorStream(true).start();
    }
}
