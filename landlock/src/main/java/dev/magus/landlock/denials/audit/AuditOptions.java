package dev.magus.landlock.denials.audit;

/**
 * @param enableAudit switch the kernel's audit on while the source is open when it is off, and
 *                    switch it back off on close. System-wide, so never a default: only an
 *                    explicit user option may set it.
 */
public record AuditOptions(boolean enableAudit) {
    /** Read what the host already audits; change nothing. */
    public static AuditOptions readOnly() {
        return new AuditOptions(false);
    }
}
