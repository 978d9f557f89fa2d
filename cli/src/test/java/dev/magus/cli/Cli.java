package dev.magus.cli;

import dev.magus.env.platform.Platform;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.denials.audit.AuditAvailability;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.RunServices;
import dev.magus.policy.HostFacts;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import picocli.CommandLine;

/**
 * Runs the command line in-process with captured output and an injected (fake) host. A run's
 * child output still goes to the test's own stdout and stderr; magus's lines are captured.
 */
final class Cli {
    private Cli() {
    }

    record Result(int status, String out, String err) {
    }

    /** Runs one command with {@code context}, then closes its services, as {@link Main#execute} does: a context serves one command. */
    static Result run(CliContext context, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine.IFactory defaults = CommandLine.defaultFactory();
        CommandLine.IFactory factory = new CommandLine.IFactory() {
            @Override
            @SuppressWarnings("unchecked")
            public <K> K create(Class<K> cls) throws Exception {
                if (cls == PolicyCommand.class) {
                    return (K) new PolicyCommand(context);
                }
                if (cls == CheckCommand.class) {
                    return (K) new CheckCommand(context);
                }
                if (cls == ProbeCommand.class) {
                    return (K) new ProbeCommand(context);
                }
                if (cls == RunCommand.class) {
                    return (K) new RunCommand(context);
                }
                if (cls == TargetCommand.class) {
                    return (K) new TargetCommand(context);
                }
                if (cls == DemoCommand.class) {
                    return (K) new DemoCommand(context);
                }
                if (cls == JobCommand.class) {
                    return (K) new JobCommand(context);
                }
                if (cls == LeaseCommand.class) {
                    return (K) new LeaseCommand(context);
                }
                if (cls == QuarantineCommand.class) {
                    return (K) new QuarantineCommand(context);
                }
                if (cls == InitCommand.class) {
                    return (K) new InitCommand(context);
                }
                if (cls == TrustCommand.class) {
                    return (K) new TrustCommand(context);
                }
                return defaults.create(cls);
            }
        };
        // A run hands magus's stdin to its child by default: in this JVM that is surefire's
        // command channel, which a child must never read.
        System.setIn(java.io.InputStream.nullInputStream());
        // Main's own command line, handlers and all, built for these arguments as Main.execute does: only the commands' host and streams are the test's.
        int status;
        try {
            status = Main.commandLine(factory, args)
                    .setOut(new PrintWriter(out, true))
                    .setErr(new PrintWriter(err, true))
                    .execute(args);
        } finally {
            context.services().close();
        }
        return new Result(status, out.toString(), err.toString());
    }

    /** Trusts {@code yaml} for {@code host}'s user, as its author would with {@code magus trust}. */
    static void trust(Host host, Path yaml) {
        try {
            dev.magus.workspace.trust.TrustStore.of(host.env(), host.home()).trust(yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A fake Linux host under {@code dir}: its own home and temp base, never the real ones. */
    static Host fakeHost(Path dir, Map<String, String> extraEnv) {
        try {
            Path home = Files.createDirectories(dir.resolve("home")).toRealPath();
            Path temp = Files.createDirectories(dir.resolve("tmp")).toRealPath();
            Map<String, String> env = new HashMap<>();
            env.put("HOME", home.toString());
            env.put("USER", "tester");
            env.put("PATH", Optional.ofNullable(System.getenv("PATH")).orElse("/usr/bin:/bin"));
            env.putAll(extraEnv);
            return new Host(env, home, 1000, Platform.LINUX, List.of(), Optional.empty(), temp);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static CliContext context(Host host, Path cwd, LandlockProbe probe) {
        Supplier<AuditAvailability> audit = () -> new AuditAvailability.Unavailable("fake host: no audit");
        return new CliContext(() -> host, () -> cwd, probe, audit, new RunServices());
    }

    /** The real kernel and audit, with a fake home and environment. */
    static CliContext realKernel(Host host, Path cwd) {
        return new CliContext(() -> host, () -> cwd, LandlockProbe.kernel(), AuditDenialSource::probe, new RunServices());
    }
}
