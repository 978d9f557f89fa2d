package dev.magus.events;

/**
 * The keys of {@link Diagnostic#details()}, defined once: the module that writes a detail and
 * the one that reads it name it by the same constant. {@link #key()} is the spelling in the
 * NDJSON stream and the details map (stable, documented in the schema).
 */
public enum DetailKey {
    /** Landlock ABI the host has (MGS2005, MGS2012). */
    ABI("abi"),
    /** Landlock ABI a mode needs (MGS2012). */
    REQUIRED_ABI("required_abi"),
    /** What a best-effort run leaves unenforced (MGS2005). */
    UNENFORCED("unenforced"),
    /** What magus did with a proc-socket pointer: withheld or re-injected (MGS2008). */
    ACTION("action"),
    /** How many variables the scrub dropped (MGS2003): a number, the count in the message. */
    DROPPED("dropped"),
    /** The names of the dropped variables (MGS2003), a list ({@link Diagnostic#names}); never a value. */
    DROPPED_NAMES("dropped_names"),
    /**
     * {@code true} when a diagnostic has nothing new to say to a person and is shown only at
     * {@code -v}: an MGS2003 whose dropped set this workspace's last run saw too, an MGS2006 whose
     * manager's shims the run does not start. Still an event, logged and counted.
     */
    QUIET("quiet"),
    /** A version manager's name (MGS2006). */
    MANAGER("manager"),
    /** A version manager's shim directory (MGS2006). */
    SHIM_DIR("shimDir"),
    /** Variables a version manager needs that the scrub removed (MGS2006), a list. */
    SCRUBBED("scrubbed"),
    /** The spell that knows a version manager (MGS2006). */
    SPELL("spell"),
    /** A YAML snippet that fixes the cause (MGS2006). */
    YAML("yaml"),
    /** The launch step that failed (MGS2004 at spawn). */
    STEP("step"),
    /** The errno's name of a failed step. */
    ERRNO("errno"),
    /** The file a refusal is about (magus.yaml, a project file). */
    FILE("file"),
    /** A lease's job id. */
    JOB("job"),
    /** The path as requested, before resolution. */
    REQUESTED("requested"),
    /** The path as resolved, when it differs. */
    RESOLVED("resolved"),
    /** The nearest rule to a refused path. */
    NEAREST_RULE("nearest_rule"),
    /** A control file entry a write hit. */
    CONTROL_FILE("control_file"),
    /** The {@code magus.yaml} snippet that would allow a refused access. */
    ALLOW_YAML("allow_yaml"),
    /** The path an allow hint names, as the {@code path:} key of a sandbox.allow entry. */
    ALLOW_PATH("allow_path"),
    /** The access mode an allow hint names, as the {@code mode:} key of a sandbox.allow entry. */
    ALLOW_MODE("allow_mode"),
    /** {@code true} when the allow hint names a path that does not exist yet. */
    ALLOW_MISSING("allow_missing"),
    /** The advice's class: benign, attack or hint. */
    CLASS("class"),
    /** Why a refused access looks like an attack. */
    ATTACK("attack"),
    /** Why a refused access is benign. */
    BENIGN("benign"),
    /** How many times a kernel denial repeated (folded into one diagnostic). */
    REPEAT("repeat"),
    /** The audit record's blockers (Landlock's access names), a list. */
    BLOCKERS("blockers"),
    /** The Landlock domain of an audit record. */
    DOMAIN("domain"),
    /** The subject inferred from the child's output, when the audit record named another. */
    INFERRED_SUBJECT("inferred_subject"),
    /** The output line a denial was inferred from. */
    EVIDENCE("evidence"),
    /** How many audit records the kernel dropped while a run was in flight (MGS2014), a number. */
    LOST("lost"),
    /** How many times magus's audit reader overflowed (MGS2014), a number. */
    OVERRUNS("overruns"),
    /** A network refusal's host. */
    HOST("host"),
    /** A network refusal's port. */
    PORT("port"),
    /** A proxied request's HTTP method. */
    METHOD("method"),
    /** The address a refused host resolved to. */
    ADDRESS("address"),
    /** The class of that address (loopback, private, link-local...). */
    ADDRESS_CLASS("address_class"),
    /** Where a symlink loop's resolution had got when it gave up. */
    REACHED("reached"),
    /** Why a connection was refused. */
    REASON("reason"),
    /** A control file audit's change: created, modified, removed, unaudited. */
    CHANGE("change"),
    /** What changed in a control file entry. */
    WHAT("what"),
    /** The control file entry a change is about. */
    ENTRY("entry"),
    /** Whether magus restored a control file entry. */
    RESTORED("restored"),
    /** The run's processes that outlived its collection, as the message names them ("123, group 45"). */
    PIDS("pids"),
    /** Where a changed symlink points. */
    TARGET("target"),
    /**
     * Where the audit kept the run's version of a control entry it put back or removed:
     * {@code RUN/N}, as {@code magus quarantine restore RUN N} takes it.
     */
    QUARANTINE("quarantine"),
    /**
     * What an approver decided about an access the policy refused while the run waited
     * ({@code --ask}): allow-once, allow-for-run, deny or timeout; not-approvable for an exec.
     */
    DECISION("decision");

    private final String key;

    DetailKey(String key) {
        this.key = key;
    }

    /** The spelling in the details map and the NDJSON stream. */
    public String key() {
        return key;
    }
}
