package dev.magus.orchestrator.run;

import dev.magus.events.Mode;
import dev.magus.landlock.supervise.Approval;
import dev.magus.landlock.supervise.Approver;
import dev.magus.workspace.audit.DescendantAudit;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One command to run.
 *
 * @param workingDir where the command starts; the workspace is the nearest ancestor holding
 *                   {@code magus.yaml}
 * @param argv       the command and its arguments
 * @param envSet     this run's <code>env&#92;set</code> overrides, in the order given
 * @param envUnset   this run's <code>env&#92;unset</code> names
 * @param sandbox    {@code --sandbox}, when given
 * @param stdin      what the child reads
 * @param allowHosts {@code --allow-host}: hosts this run's proxy lets through beyond the
 *                   declared ones (used only under network mode {@code proxy})
 * @param descendantAudit the descendant projects of a write-mode dispatch (relative to the
 *                   workspace root): any entry the run changes beneath one fails it with MGS3001,
 *                   under every mode, off included (a scope rule, not a sandbox grant)
 * @param grants     {@code --allow} and {@code --pass}: the {@code cli} layer of this run's policy
 * @param op         {@code --op SPELL}: a spell op's child, with its project's spells plus this one
 * @param target     {@code --target NAME}: the target's command (plus {@code argv}, which may be
 *                   empty) in its project's dir, with its sandbox layer
 * @param supervise  {@code --supervise}: the child's path and address calls observed by a supervisor
 *                   (also when the workspace sets {@code sandbox.supervise})
 * @param failOnDenial {@code --fail-on-denial}: a child that exits 0 after the kernel refused it
 *                   something ({@link DenialStatus}) ends the run with {@link DenialStatus#STATUS}
 * @param approval   {@code --ask}: who decides, while the child waits, about an open the policy refuses
 *                   (the run is then supervised); empty: nobody is asked
 */
public record RunRequest(
        Path workingDir,
        List<String> argv,
        Map<String, String> envSet,
        Set<String> envUnset,
        Optional<Mode> sandbox,
        Stdin stdin,
        List<Path> descendantAudit,
        Grants grants,
        List<String> allowHosts,
        Optional<String> op,
        Optional<String> target,
        boolean supervise,
        boolean failOnDenial,
        Optional<Approval> approval) {

    public RunRequest {
        Objects.requireNonNull(workingDir, "workingDir");
        argv = List.copyOf(argv);
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(target, "target");
        if (argv.isEmpty() && target.isEmpty()) {
            throw new IllegalArgumentException("a run needs a command or a target");
        }
        envSet = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(envSet));
        envUnset = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(envUnset));
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(stdin, "stdin");
        descendantAudit = List.copyOf(descendantAudit);
        Objects.requireNonNull(grants, "grants");
        allowHosts = List.copyOf(allowHosts);
        Objects.requireNonNull(approval, "approval");
    }

    /** Nobody asked about a refused access. */
    public RunRequest(Path workingDir, List<String> argv, Map<String, String> envSet, Set<String> envUnset,
            Optional<Mode> sandbox, Stdin stdin, List<Path> descendantAudit, Grants grants, List<String> allowHosts,
            Optional<String> op, Optional<String> target, boolean supervise, boolean failOnDenial) {
        this(workingDir, argv, envSet, envUnset, sandbox, stdin, descendantAudit, grants, allowHosts, op, target, supervise,
                failOnDenial, Optional.empty());
    }

    /** The same request for another command: the working directory, grants, overlay and the rest kept. */
    public RunRequest withArgv(List<String> command) {
        return new RunRequest(workingDir, command, envSet, envUnset, sandbox, stdin, descendantAudit, grants, allowHosts, op,
                target, supervise, failOnDenial, approval);
    }

    /** Whether the run is supervised: asked for, or implied by an approver. */
    public boolean supervised() {
        return supervise || approval.isPresent();
    }

    /** Not supervised unless the workspace says so; a denial leaves the child's status alone. */
    public RunRequest(Path workingDir, List<String> argv, Map<String, String> envSet, Set<String> envUnset,
            Optional<Mode> sandbox, Stdin stdin, List<Path> descendantAudit, Grants grants, List<String> allowHosts,
            Optional<String> op, Optional<String> target) {
        this(workingDir, argv, envSet, envUnset, sandbox, stdin, descendantAudit, grants, allowHosts, op, target, false, false);
    }

    /** A request without a descendant audit, grants, op or target. */
    public RunRequest(Path workingDir, List<String> argv, Map<String, String> envSet, Set<String> envUnset,
            Optional<Mode> sandbox, Stdin stdin) {
        this(workingDir, argv, envSet, envUnset, sandbox, stdin, List.of(), Grants.NONE, List.of(), Optional.empty(),
                Optional.empty());
    }

    /** A request that adds no host and names no op or target. */
    public RunRequest(Path workingDir, List<String> argv, Map<String, String> envSet, Set<String> envUnset,
            Optional<Mode> sandbox, Stdin stdin, List<Path> descendantAudit, Grants grants) {
        this(workingDir, argv, envSet, envUnset, sandbox, stdin, descendantAudit, grants, List.of(), Optional.empty(),
                Optional.empty());
    }

    public static Builder builder(Path workingDir, String... argv) {
        return new Builder(workingDir, List.of(argv));
    }

    public static Builder builder(Path workingDir, List<String> argv) {
        return new Builder(workingDir, argv);
    }

    /** Collects a request; every setter returns the builder. */
    public static final class Builder {
        private final Path workingDir;
        private final List<String> argv;
        private final Map<String, String> set = new LinkedHashMap<>();
        private final Set<String> unset = new LinkedHashSet<>();
        private Optional<Mode> sandbox = Optional.empty();
        private Stdin stdin = Stdin.none();
        private final List<String> allowHosts = new ArrayList<>();
        private Optional<String> op = Optional.empty();
        private Optional<String> target = Optional.empty();
        private List<Path> descendantAudit = List.of();
        private final List<String> allow = new ArrayList<>();
        private final List<String> pass = new ArrayList<>();
        private boolean supervise;
        private boolean failOnDenial;
        private Optional<Approval> approval = Optional.empty();

        private Builder(Path workingDir, List<String> argv) {
            this.workingDir = workingDir;
            this.argv = new ArrayList<>(argv);
        }

        /** <code>env&#92;set</code>: a later set or unset of the same name wins. */
        public Builder set(String name, String value) {
            unset.remove(name);
            set.put(name, value);
            return this;
        }

        /** <code>env&#92;unset</code>. */
        public Builder unset(String name) {
            set.remove(name);
            unset.add(name);
            return this;
        }

        public Builder sandbox(Mode mode) {
            this.sandbox = Optional.of(mode);
            return this;
        }

        public Builder stdin(Stdin stdin) {
            this.stdin = stdin;
            return this;
        }

        /** {@code --allow-host}: one more host for this run's proxy (checked when the policy is built). */
        public Builder allowHost(String host) {
            allowHosts.add(Objects.requireNonNull(host, "host"));
            return this;
        }

        /** {@code --op SPELL}: a spell op's child. */
        public Builder op(String spell) {
            this.op = Optional.of(spell);
            return this;
        }

        /** {@code --target NAME}: the workspace's target NAME, with the builder's argv appended to its command. */
        public Builder target(String name) {
            this.target = Optional.of(name);
            return this;
        }

        /**
         * Makes this run a write-mode dispatch on a project whose registered descendant
         * projects are {@code descendantDirs} (see {@link DescendantAudit#below} for finding
         * them): the single entry point of the MGS3001 audit.
         */
        public Builder descendantAudit(List<Path> descendantDirs) {
            this.descendantAudit = List.copyOf(descendantDirs);
            return this;
        }

        /** {@code --allow PATH[:ro|rw|rx|rwx]}: a grant for this run only (see {@link Grants}). */
        public Builder allow(String spec) {
            allow.add(spec);
            return this;
        }

        /** {@code --pass VAR}: a variable (or {@code PREFIX_*}) passed through for this run only. */
        public Builder pass(String pattern) {
            pass.add(pattern);
            return this;
        }

        /**
         * Supervises the run: the child's calls that name a path or an address are observed,
         * and each one the policy refuses is an exact denial, without privilege and without a
         * word from the child. Refused (required) or said and skipped (best-effort) on a kernel
         * that cannot.
         */
        public Builder supervise(boolean on) {
            this.supervise = on;
            return this;
        }

        /** {@code --fail-on-denial}: see {@link DenialStatus}. */
        public Builder failOnDenial(boolean fail) {
            this.failOnDenial = fail;
            return this;
        }

        /**
         * {@code --ask}: supervises the run, and holds each open the policy refuses (a read, a
         * write, a create, a listing) while {@code approver} decides; an allowed one is opened by
         * magus and its descriptor handed to the child, whose Landlock domain never grows. No
         * answer within {@code timeout} denies (EACCES). An exec is never asked.
         */
        public Builder approver(Approver approver, Duration timeout) {
            this.approval = Optional.of(new Approval(approver, timeout));
            return this;
        }

        /** As above, waiting {@link Approval#DEFAULT_TIMEOUT} for each answer. */
        public Builder approver(Approver approver) {
            return approver(approver, Approval.DEFAULT_TIMEOUT);
        }

        public RunRequest build() {
            return new RunRequest(workingDir, argv, set, unset, sandbox, stdin, descendantAudit, new Grants(allow, pass),
                    allowHosts, op, target, supervise, failOnDenial, approval);
        }
    }
}
