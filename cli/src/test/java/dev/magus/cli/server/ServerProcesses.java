package dev.magus.cli.server;

import dev.magus.orchestrator.orphans.Strays;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * The magus servers this test JVM's tests started and left running. The JVM makes itself the
 * subreaper of its descendants when the tests start ({@code PR_SET_CHILD_SUBREAPER}), so a server
 * started in the background (by {@code magus server start} or a first run, in a session of its
 * own) stays its descendant instead of going to init; when the tests end, any such server still
 * running fails the run (and is killed, since nothing else would stop it). Registered for every
 * test JVM of this module (META-INF/services).
 */
public final class ServerProcesses implements LauncherSessionListener {
    @Override
    public void launcherSessionOpened(LauncherSession session) {
        if (!Strays.adopt()) {
            System.err.println("ServerProcesses: cannot become the subreaper here; a server started in the background"
                    + " is not seen by the check at the end of the tests");
        }
    }

    @Override
    public void launcherSessionClosed(LauncherSession session) {
        // A server told to stop a moment ago may still be on its way out; one left running is not.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!startedHere().isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        List<String> left = startedHere();
        if (!left.isEmpty()) {
            for (ProcessHandle p : ProcessHandle.current().descendants().toList()) {
                if (isServer(p.pid())) {
                    p.destroyForcibly();
                }
            }
            throw new AssertionError("the tests left " + left.size() + " magus server(s) running (now killed): " + left);
        }
    }

    /** The magus servers among this JVM's descendants, each as {@code pid: command line}. */
    public static List<String> startedHere() {
        List<String> out = new ArrayList<>();
        for (ProcessHandle p : ProcessHandle.current().descendants().toList()) {
            if (isServer(p.pid())) {
                out.add(p.pid() + ": " + String.join(" ", cmdline(p.pid())));
            }
        }
        return out;
    }

    /** {@code ... dev.magus.cli.Main server ...}: a running (not zombie) magus server. */
    static boolean isServer(long pid) {
        List<String> c = cmdline(pid);
        int main = c.indexOf("dev.magus.cli.Main");
        return main >= 0 && main + 1 < c.size() && c.get(main + 1).equals("server");
    }

    private static List<String> cmdline(long pid) {
        try {
            String raw = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")), StandardCharsets.UTF_8);
            return raw.isEmpty() ? List.of() : Arrays.asList(raw.split("\0"));
        } catch (IOException e) {
            return List.of(); // gone
        }
    }

    static void assumeLinux() {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        String why = "server test skipped: servers and their runs need Linux (os " + System.getProperty("os.name") + ")";
        if (!linux) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(linux, why);
    }
}
