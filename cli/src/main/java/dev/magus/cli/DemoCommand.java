package dev.magus.cli;

import dev.magus.events.MagusEnv;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.HostDirs;
import dev.magus.events.IoFailures;
import dev.magus.orchestrator.Orchestrator;
import dev.magus.orchestrator.temp.Trees;
import dev.magus.cli.demo.DemoWorld;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.events.Mode;
import java.io.IOException;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "demo", description = "Runs a compromised package's postinstall script under mode required in a throwaway"
        + " world with fake credentials, and shows every attempt refused, live. Never touches your real HOME.")
final class DemoCommand implements Callable<Integer> {
    @Option(names = "--keep", description = "Keeps the throwaway world and prints where it is.")
    boolean keep;

    private final CliContext context;

    DemoCommand() {
        this(CliContext.system());
    }

    DemoCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException {
        PrintStream out = System.out;
        Host real = context.host().get();
        DemoWorld world;
        try {
            world = DemoWorld.create(real.tempBase());
        } catch (IOException e) {
            throw HostDirs.tempFailure(real, "cannot create the demo's throwaway world under " + real.tempBase(),
                    IoFailures.reason(e));
        }
        try {
            Map<String, String> env = new HashMap<>(real.env());
            env.keySet().removeIf(k -> k.startsWith("XDG_") || k.startsWith(MagusEnv.PREFIX));
            env.putAll(world.secretEnv());
            Host host = real.withEnv(env, world.home());

            out.println("magus demo: a package's postinstall runs with your (fake) credentials on disk and");
            out.println("GITHUB_TOKEN / AWS_SECRET_ACCESS_KEY in the environment, under sandbox mode required.");
            out.println("  home:      " + world.home());
            out.println("  workspace: " + world.workspace());
            out.println();
            out.flush();

            Orchestrator orchestrator = Orchestrator.builder(host).services(context.services()).build();
            RunRequest request = RunRequest.builder(world.workspace(), world.command()).sandbox(Mode.REQUIRED).build();
            Run run = orchestrator.submit(request);
            List<String> lines = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            run.events().subscribe(e -> {
                if (e instanceof RunEvent.Output o) {
                    lines.add(o.line());
                    // One stream, in event order, so the refusal reads right under the attempt.
                    out.println("  | " + o.line());
                } else if (e instanceof RunEvent.Diag d && HumanLines.shown(d.diagnostic(), false)) {
                    out.println(HumanLines.line(d.diagnostic()));
                }
            });
            RunResult result = run.result().block();
            out.flush();

            if (result == null || result.status() == ExitCodes.REFUSED) {
                out.println();
                out.println("magus demo: magus refused to run the script (see above); nothing ran.");
                return ExitCodes.REFUSED;
            }
            List<String> failures = world.verdicts(List.copyOf(lines));
            out.println();
            long denials = result.count(dev.magus.events.Code.MGS2001)
                    + result.count(dev.magus.events.Code.MGS2002) + result.count(dev.magus.events.Code.MGS2007);
            out.println("magus demo: " + denials + " boundaries hit and refused; secrets in the environment dropped"
                    + " (MGS2003).");
            if (failures.isEmpty()) {
                out.println("magus demo: the attack failed: nothing outside the workspace was read, written or run.");
            } else {
                failures.forEach(f -> out.println("magus demo: NOT CONTAINED: " + f));
            }
            return failures.isEmpty() ? 0 : 1;
        } finally {
            if (keep) {
                out.println("magus demo: kept " + world.root());
            } else {
                Trees.deleteQuietly(world.root());
            }
        }
    }
}
