package dev.magus.landlock.denials.audit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * @param enableAudit switch the kernel's audit on while the source is open when it is off, and
 *                    switch it back off when the last magus process reading it is done.
 *                    System-wide, so never a default: only an explicit user option may set it.
 * @param shareDir    where concurrent magus processes keep the audit switch's holders
 *                    ({@link AuditSwitch}); one directory for the whole host, as the switch is
 */
public record AuditOptions(boolean enableAudit, Path shareDir) {

    public AuditOptions {
        Objects.requireNonNull(shareDir, "shareDir");
    }

    /** In the host's default share directory ({@link #defaultShareDir()}). */
    public AuditOptions(boolean enableAudit) {
        this(enableAudit, defaultShareDir());
    }

    /**
     * {@code /run/magus} when {@code /run} can be written (switching audit needs root, which
     * can), else {@code magus-audit} in the JVM's temp dir: one place for every process that
     * may switch the host's audit.
     */
    public static Path defaultShareDir() {
        Path run = Path.of("/run");
        if (Files.isDirectory(run) && Files.isWritable(run)) {
            return run.resolve("magus");
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "magus-audit-" + System.getProperty("user.name"));
    }
}
