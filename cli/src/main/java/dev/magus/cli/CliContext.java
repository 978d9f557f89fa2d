package dev.magus.cli;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.denials.audit.AuditAvailability;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import dev.magus.orchestrator.run.Host;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What the read-only commands ({@code policy}, {@code check}, {@code probe}) learn about the
 * machine, injected so that a test plays a fake home, environment and working directory and
 * never reads the real ones.
 *
 * @param host  the host (environment, home, installation, temp base)
 * @param cwd   the directory the command was started in, absolute
 * @param probe the Landlock ABI of the kernel
 * @param audit whether Landlock's audit records can be read
 */
record CliContext(Supplier<Host> host, Supplier<Path> cwd, LandlockProbe probe, Supplier<AuditAvailability> audit) {
    CliContext {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(cwd, "cwd");
        Objects.requireNonNull(probe, "probe");
        Objects.requireNonNull(audit, "audit");
    }

    /** This process: its environment, {@code user.home}, the current directory and the running kernel. */
    static CliContext system() {
        return new CliContext(Host::fromSystem, () -> Path.of("").toAbsolutePath(), LandlockProbe.kernel(),
                AuditDenialSource::probe);
    }
}
