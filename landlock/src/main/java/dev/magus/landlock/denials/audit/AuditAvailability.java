package dev.magus.landlock.denials.audit;

/** Whether this process can read Landlock's audit records, and if not, why. */
public sealed interface AuditAvailability {

    /** One line a person can act on. */
    String describe();

    /**
     * The records can be read. {@code enabled} is the kernel's audit switch (0 off, 1 on, 2 on
     * and locked); with 0 no Landlock record is produced unless magus is explicitly allowed to
     * switch audit on for its lifetime ({@link AuditOptions#enableAudit()}).
     */
    record Available(int landlockAbi, int enabled) implements AuditAvailability {
        public boolean producing() {
            return enabled != 0;
        }

        @Override
        public String describe() {
            return "Landlock ABI " + landlockAbi + ", audit read-log group joinable, audit "
                    + (enabled == 0 ? "disabled (needs the explicit enable option)" : enabled == 2 ? "enabled and locked" : "enabled");
        }
    }

    /** The records cannot be read; the reason says what is missing. */
    record Unavailable(String reason) implements AuditAvailability {
        @Override
        public String describe() {
            return reason;
        }
    }
}
