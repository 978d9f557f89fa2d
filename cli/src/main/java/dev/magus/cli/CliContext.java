package dev.magus.cli;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.denials.audit.AuditAvailability;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.RunServices;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What the commands learn about the machine, injected so that a test plays a fake home,
 * environment and working directory and never reads the real ones, and the services every
 * orchestrator they build shares.
 *
 * @param host     the host (environment, home, installation, temp base)
 * @param cwd      the directory the command was started in, absolute
 * @param probe    the Landlock ABI of the kernel
 * @param audit    whether Landlock's audit records can be read
 * @param services what runs keep from one to the next: the process's ({@link Main} makes them and
 *                 closes them once the command has ended), or a test's
 */
record CliContext(Supplier<Host> host, Supplier<Path> cwd, LandlockProbe probe, Supplier<AuditAvailability> audit,
        RunServices services) {
    CliContext {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(cwd, "cwd");
        Objects.requireNonNull(probe, "probe");
        Objects.requireNonNull(audit, "audit");
        Objects.requireNonNull(services, "services");
    }

    /** This process, its runs sharing {@code services}: its environment, {@code user.home}, the current directory and the running kernel. */
    static CliContext system(RunServices services) {
        return new CliContext(Host::fromSystem, () -> Path.of("").toAbsolutePath(), LandlockProbe.kernel(),
                AuditDenialSource::probe, services);
    }

    /**
     * {@link #system(RunServices)} with services of its own, for a command made without
     * {@link Main} (picocli's own factory: help, completion), which runs nothing.
     */
    static CliContext system() {
        return system(new RunServices());
    }
}
