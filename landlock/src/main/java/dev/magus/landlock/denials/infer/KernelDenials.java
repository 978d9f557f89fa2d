package dev.magus.landlock.denials.infer;

import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import dev.magus.landlock.denials.DenialConfirmer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Source 1 for one run: the child's output lines in, confirmed kernel-layer diagnostics out.
 * Only a refusal the policy itself gives becomes a diagnostic, with the policy's code, subject
 * and details, {@code layer=kernel} and {@code source=inferred:<stream>}; a repeat of the same
 * operation and path is emitted with {@link DetailKey#REPEAT}, counted but not shown again.
 *
 * <p>When the message does not say the access ({@link AccessHint#UNKNOWN}), the path decides
 * which is asked first: a missing path can only have been refused a create (WRITE); an
 * executable file most likely failed to run (EXEC); anything else was most likely read (READ,
 * then WRITE, then EXEC).
 */
public final class KernelDenials {

    /** curl's write failure; {@code -sS} hides the warning that named the file. */
    private static final Pattern CURL_WRITE_FAILED = Pattern.compile("^curl: \\(23\\) Failure writing output");
    private static final long MAX_SCRIPT_BYTES = 1 << 20;
    /** A line that says the refusal itself, not a line of a dump that goes with one. */
    private static final Pattern REFUSAL_LINE = Pattern.compile("(?i)permission denied|os error 13|errno 13\\]");

    private final DenialConfirmer confirmer;
    private final Path cwd;
    private final DenialParser.Cwd liveCwd;
    private final DenialParser parser;
    private final CommandLine commandLine;
    /** Occurrences of each reported denial: the first is reported, later ones are marked repeats. */
    private final java.util.Map<Key, Integer> reported = new java.util.HashMap<>();
    /** The diagnostic each confirmed candidate gave, for the lines that name it again. */
    private final java.util.Map<Candidate.Key, Diagnostic> confirmed = new java.util.HashMap<>();
    private final Set<Candidate.Key> asked = new HashSet<>();
    /** Every path asked about: a report that does not say the access adds nothing to one already asked. */
    private final Set<Path> askedPaths = new HashSet<>();
    /** The run's own child: its pid names its {@code /proc} files ({@link ToolProbes}). */
    private final long pid;
    /** bash's own message for a command it could not run: {@code bash: /x: Permission denied}, {@code bash: line 1: /x: ...}. */
    private static final Pattern BASH_SAID = Pattern.compile("^(?:\\S*/)?bash: (?:line \\d+: )?[^:]+: Permission denied$");
    /** Each stream's Python traceback so far, for a socket error that names no address. */
    private final java.util.Map<RunEvent.Stream, ConnectParser.Traceback> tracebacks =
            new java.util.EnumMap<>(RunEvent.Stream.class);

    /**
     * The child whose output is read.
     *
     * @param cwd     the directory it started in, absolute
     * @param live    its working directory now (it may have changed it since), asked only for
     *                a line that names a relative path
     * @param pid     its process id, or -1: names its {@code /proc} files ({@link ToolProbes})
     * @param command what magus started: its inline script, curl's {@code -o}, its {@code cd}s
     *                tell what its output leaves open ({@link CommandLine})
     */
    public record Child(Path cwd, DenialParser.Cwd live, long pid, CommandLine command) {
        public Child {
            Objects.requireNonNull(cwd, "cwd");
            Objects.requireNonNull(live, "live");
            Objects.requireNonNull(command, "command");
            if (!cwd.isAbsolute()) {
                throw new IllegalArgumentException("cwd must be absolute: " + cwd);
            }
        }

        /** A child that stays in {@code cwd}; nothing else known. */
        public static Child at(Path cwd) {
            return new Child(cwd, () -> cwd, -1, CommandLine.NONE);
        }

        /** The running process {@code pid}, started in {@code cwd} as {@code command}. */
        public static Child running(long pid, Path cwd, CommandLine command) {
            return new Child(cwd, new ProcCwd(pid, cwd), pid, command);
        }
    }

    public KernelDenials(DenialConfirmer confirmer, Child child) {
        this.confirmer = Objects.requireNonNull(confirmer, "confirmer");
        this.cwd = child.cwd();
        this.liveCwd = child.live();
        this.pid = child.pid();
        this.commandLine = child.command();
        this.parser = new DenialParser();
    }

    /** The line a (nested) magus prints for a diagnostic: {@code magus: MGS2001 ...}, {@code magus learn: ...}. */
    private static final java.util.regex.Pattern NESTED_MAGUS_LINE =
            java.util.regex.Pattern.compile("magus(?: [a-z]+)?: (?:MGS\\d{4} |note: |unconfined )");

    /** The diagnostics one output event gives away: usually none. */
    public List<Diagnostic> accept(RunEvent.Output output) {
        return accept(output.stream(), output.line());
    }

    /**
     * What is left when the child's streams have ended: a report the parser held for stack
     * frames that never came, and the silent probes of the tool magus started ({@link ToolProbes}).
     */
    public synchronized List<Diagnostic> finish() {
        DenialParser.Cwd start = new DenialParser.Cwd() {
            @Override
            public Path get() {
                return cwd;
            }
        };
        List<Diagnostic> out = new ArrayList<>(confirmAll(parser.finish(), start));
        for (ToolProbes.Probe probe : ToolProbes.of(commandLine, pid)) {
            Optional<Diagnostic> refused = confirmer.confirm(probe.op(), probe.path(), cwd);
            refused.ifPresent(d -> {
                if (reported.putIfAbsent(new Key(d.operation(), d.subject()), 1) == null) {
                    out.add(new Diagnostic(d.code(), d.message(), d.subject(), d.operation(), Layer.KERNEL,
                            "inferred:probe", d.details()).withDetail(DetailKey.QUIET.key(), "true")
                            .withDetail(DetailKey.EVIDENCE, "not said by the tool: " + probe.why()));
                }
            });
        }
        return List.copyOf(out);
    }

    /** The diagnostics one line gives away: usually none, never one already reported. */
    public synchronized List<Diagnostic> accept(RunEvent.Stream stream, String line) {
        if (NESTED_MAGUS_LINE.matcher(line).lookingAt()) {
            // A nested magus's own diagnostic line ("magus: MGS2004 ... is outside every write
            // rule; see 'magus explain MGS2004'") names paths and denial words, but it is that
            // magus reporting, not a tool the kernel refused: the nested run shows it itself.
            return List.of();
        }
        Path[] once = new Path[1];
        List<List<Path>> elsewhere = new ArrayList<>(1);
        DenialParser.Cwd memo = new DenialParser.Cwd() {
            @Override
            public Path get() {
                if (once[0] == null) {
                    Path live = liveCwd.get();
                    once[0] = live != null && live.isAbsolute() ? live : cwd;
                }
                return once[0];
            }

            @Override
            public List<Path> elsewhere() {
                if (elsewhere.isEmpty()) {
                    elsewhere.add(liveCwd.elsewhere());
                }
                return elsewhere.get(0);
            }

            @Override
            public List<Path> changedInto() {
                return commandLine.changedInto(cwd);
            }
        };
        List<Candidate> candidates = parser.parse(line, stream, memo);
        if (candidates.isEmpty() && CURL_WRITE_FAILED.matcher(line).lookingAt()) {
            Optional<Path> output = commandLine.curlOutput(cwd);
            if (output.isPresent()) {
                candidates = List.of(new Candidate(AccessHint.WRITE, output.get(), stream, line));
            }
        }
        List<Diagnostic> out = new ArrayList<>(1);
        setid(stream, line, memo).ifPresent(d -> {
            int n = reported.merge(new Key(d.operation(), d.subject()), 1, Integer::sum);
            out.add(n == 1 ? d : d.withDetail(DetailKey.REPEAT.key(), Integer.toString(n)));
        });
        for (ConnectParser.ConnectCandidate c : ConnectParser.parse(line,
                tracebacks.computeIfAbsent(stream, s -> new ConnectParser.Traceback()))) {
            network(c).ifPresent(d -> {
                if (reported.putIfAbsent(new Key(d.operation(), d.subject()), 1) == null) {
                    out.add(new Diagnostic(d.code(), d.message(), d.subject(), d.operation(), Layer.KERNEL,
                            "inferred:" + stream.name().toLowerCase(Locale.ROOT), d.details()).withDetail(DetailKey.EVIDENCE, line));
                }
            });
        }
        out.addAll(confirmAll(candidates, memo));
        return List.copyOf(out);
    }

    private List<Diagnostic> confirmAll(List<Candidate> candidates, DenialParser.Cwd memo) {
        if (candidates.isEmpty()) {
            return List.of();
        }
        List<Diagnostic> out = new ArrayList<>(1);
        Set<Key> thisLine = new HashSet<>();
        for (Candidate c : candidates) {
            boolean newQuestion = asked.add(c.key());
            boolean newPath = askedPaths.add(c.path().normalize());
            if (!newQuestion || !newPath && c.hint() == AccessHint.UNKNOWN) {
                // Asked before: a line naming it again is one more occurrence of that denial.
                // Only a line that is itself the refusal message: a dump's "path:" line or a
                // stack frame repeats the first message, it is no second denial.
                Diagnostic first = confirmed.get(c.key());
                if (first != null && REFUSAL_LINE.matcher(c.line()).find()
                        && thisLine.add(new Key(first.operation(), first.subject()))) {
                    int n = reported.merge(new Key(first.operation(), first.subject()), 1, Integer::sum);
                    out.add(first.withDetail(DetailKey.REPEAT.key(), Integer.toString(n)));
                }
                continue;
            }
            confirm(c, memo).ifPresent(d -> {
                Key key = new Key(d.operation(), d.subject());
                if (!thisLine.add(key)) {
                    return;
                }
                int n = reported.merge(key, 1, Integer::sum);
                confirmed.putIfAbsent(c.key(), d);
                out.add(n == 1 ? d : d.withDetail(DetailKey.REPEAT.key(), Integer.toString(n)));
                if (n == 1 && d.operation() == Operation.EXEC && BASH_SAID.matcher(c.line()).lookingAt()) {
                    // bash, refused an exec, opens the file to say why ("bad interpreter", "cannot
                    // execute binary file"): the kernel refuses that read too. Counted, shown at -v.
                    confirmer.confirm(Operation.READ, Path.of(d.subject()), cwd).ifPresent(r -> {
                        if (reported.putIfAbsent(new Key(r.operation(), r.subject()), 1) == null) {
                            out.add(new Diagnostic(r.code(), r.message(), r.subject(), r.operation(), Layer.KERNEL,
                                    d.source(), r.details()).withDetail(DetailKey.EVIDENCE, c.line())
                                    .withDetail(DetailKey.QUIET.key(), "true"));
                        }
                    });
                }
            });
        }
        return List.copyOf(out);
    }

    /**
     * MGS2002 for a mode change the tool says was refused with EPERM ({@link SetidRefusal}) on a
     * file the run's user owns, or any file when that is root: the kernel refuses an owner's
     * {@code chmod} only for an immutable file and for the seccomp layer's set-user-ID and
     * set-group-ID rule, which no policy lifts, so the diagnostic suggests nothing.
     */
    private static Optional<Diagnostic> setid(RunEvent.Stream stream, String line, DenialParser.Cwd childCwd) {
        Optional<String> named = SetidRefusal.path(line);
        if (named.isEmpty()) {
            return Optional.empty();
        }
        Path path;
        try {
            path = childCwd.get().resolve(named.get()).normalize();
            int uid = OwnUid.UID;
            int owner = (Integer) Files.getAttribute(path, "unix:uid");
            if (uid < 0 || uid != 0 && owner != uid) {
                return Optional.empty();
            }
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return Optional.empty();
        }
        java.util.Map<String, String> details = new java.util.TreeMap<>();
        details.put(DetailKey.REASON.key(), "set-user-ID or set-group-ID mode");
        details.put(DetailKey.CLASS.key(), "attack");
        details.put(DetailKey.ATTACK.key(), "a set-user-ID or set-group-ID file runs with its owner's or group's rights"
                + " for whoever starts it");
        return Optional.of(new Diagnostic(dev.magus.events.Code.MGS2002, "write denied: setting a set-user-ID or"
                + " set-group-ID mode on " + path + " is refused to every confined child (seccomp)", path.toString(),
                Operation.WRITE, Layer.KERNEL, "inferred:" + stream.name().toLowerCase(Locale.ROOT), details)
                .withDetail(DetailKey.EVIDENCE, line));
    }

    /** magus's own uid, which its children run as; -1 when it cannot be read. */
    private static final class OwnUid {
        static final int UID = read();

        private static int read() {
            try {
                return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
                return -1;
            }
        }
    }

    /**
     * The run's TCP rules on a network candidate. One the tool named neither as a connect nor
     * a bind is reported only when the rules refuse both, whatever the port (mode none).
     */
    private Optional<Diagnostic> network(ConnectParser.ConnectCandidate c) {
        return switch (c.kind()) {
            case CONNECT -> confirmer.confirmConnect(c.host(), c.port());
            case BIND -> confirmer.confirmBind(c.host(), c.port());
            case EITHER -> confirmer.confirmConnect(c.host(), c.port())
                    .filter(d -> confirmer.confirmBind(c.host(), c.port()).isPresent())
                    .map(d -> new Diagnostic(d.code(), "connect or bind denied: the tool named neither which nor where,"
                            + " and the run's network policy allows no TCP at all", "a TCP connect or bind", d.operation(),
                            d.layer(), d.source(), d.details()));
            case SOCKET -> confirmer.confirmSocket(c.host());
        };
    }

    private Optional<Diagnostic> confirm(Candidate c, DenialParser.Cwd childCwd) {
        if (c.alternatives().isEmpty()) {
            return confirmAt(c, childCwd);
        }
        // Where the child was is unknown: the start directory when the file is there (most
        // tools never cd), else the one guess the policy refuses; two or more: see below.
        Optional<Diagnostic> atStart = Files.exists(c.path().normalize()) ? confirmAt(c, childCwd) : Optional.empty();
        if (atStart.isPresent()) {
            return atStart;
        }
        List<Diagnostic> refused = new ArrayList<>();
        boolean allowedWhereItIs = false;
        for (Path p : c.alternatives()) {
            Optional<Diagnostic> there = confirmAt(new Candidate(c.hint(), p, c.stream(), c.line(), c.mustExist(), c.diedAt()),
                    childCwd);
            there.ifPresent(refused::add);
            allowedWhereItIs |= there.isEmpty() && Files.exists(p.normalize());
        }
        Optional<Diagnostic> startRefused = Optional.empty();
        if (!Files.exists(c.path().normalize())) {
            startRefused = confirmAt(new Candidate(c.hint(), c.path(), c.stream(), c.line(), c.mustExist(), c.diedAt()), childCwd);
            startRefused.ifPresent(refused::add);
        }
        if (refused.size() == 1) {
            return Optional.of(refused.get(0));
        }
        // Several readings refused (a lease refuses every directory but its globs'): a name to
        // create that stays inside the start directory was most likely made there. Not a read
        // (a name missing there could only have failed with ENOENT), not one climbing out (the
        // child had moved), and not when a file of that name the policy allows exists elsewhere
        // (its own mode may be what refused it).
        boolean create = c.hint() == AccessHint.WRITE || c.hint() == AccessHint.UNKNOWN;
        if (startRefused.isPresent() && c.atStart() && create && !allowedWhereItIs && c.path().normalize().startsWith(cwd)) {
            return startRefused.map(d -> d.withDetail(DetailKey.EVIDENCE,
                    c.line() + " (the child had exited: where the run started is a guess)"));
        }
        return Optional.empty();
    }

    private Optional<Diagnostic> confirmAt(Candidate c, DenialParser.Cwd childCwd) {
        if (c.mustExist() && !Files.exists(c.path())) {
            return Optional.empty();
        }
        AccessHint hint = c.diedAt().map(at -> fromScript(at, c.hint(), childCwd, c.path())).orElse(c.hint());
        Path path = c.path();
        if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            // The kernel is asked about a file only once the lookup found it: a refusal of a
            // name that is not there was a create in the deepest directory that is (node's
            // recursive mkdir names the whole path; sort -o, uniq's output name the new file).
            // A read named deeper than that is left as said (the file may have gone since).
            Optional<Path> made = firstMissing(path);
            boolean named = made.isPresent() && made.get().equals(path.normalize());
            if (made.isPresent() && (named || hint == AccessHint.WRITE || hint == AccessHint.UNKNOWN)) {
                path = made.get();
                hint = AccessHint.WRITE;
            }
        }
        List<Operation> order = hint == AccessHint.UNKNOWN ? unknownOrder(path) : hint.operations();
        for (Operation op : order) {
            Optional<Diagnostic> refused = confirmer.confirm(op, path, cwd);
            if (refused.isEmpty() && op == Operation.EXEC) {
                // A script the policy lets run whose interpreter it does not: the kernel refused
                // the interpreter ("x.sh: Permission denied" from dash, EACCES from execve).
                Optional<Path> interpreter = confirmer.confirm(Operation.READ, path, cwd).isEmpty()
                        ? dev.magus.landlock.launch.Shebang.interpreter(path) : Optional.empty();
                if (interpreter.isPresent()) {
                    refused = confirmer.confirm(Operation.EXEC, interpreter.get(), cwd);
                }
            }
            if (refused.isPresent()) {
                Diagnostic d = refused.get();
                Diagnostic kernel = new Diagnostic(d.code(), d.message(), d.subject(), d.operation(), Layer.KERNEL,
                        "inferred:" + c.stream().name().toLowerCase(Locale.ROOT), d.details());
                return Optional.of(kernel.withDetail(DetailKey.EVIDENCE, c.line()));
            }
        }
        return Optional.empty();
    }

    /**
     * The access a script's own line shows. Perl's {@code die "Can't open $f: $!"} reads the
     * same for {@code <} and {@code >>}; the {@code open} at the line it names does not. The
     * script is read only when the policy lets the child read it too, so no output can make
     * magus look into a file the child itself could not.
     */
    private AccessHint fromScript(DenialParser.ScriptLine at, AccessHint said, DenialParser.Cwd childCwd, Path file) {
        if (said == AccessHint.EXEC) {
            return said;
        }
        Optional<String> inline = commandLine.inlineScript(at.script());
        if (inline.isPresent()) {
            return CommandLine.line(inline.get(), at.line()).map(l -> CommandLine.access(l, file, said)).orElse(said);
        }
        try {
            Path script = childCwd.get().resolve(at.script());
            if (confirmer.confirm(Operation.READ, script, cwd).isPresent() || !Files.isRegularFile(script)
                    || Files.size(script) > MAX_SCRIPT_BYTES) {
                return said;
            }
            try (Stream<String> lines = Files.lines(script)) {
                Optional<String> text = lines.skip(Math.max(0, at.line() - 1)).findFirst();
                if (text.isPresent()) {
                    return CommandLine.access(text.get(), file, said);
                }
            }
        } catch (IOException | UncheckedIOException | InvalidPathException e) {
            // The script is gone or unreadable as text: the message's own words decide.
        }
        return said;
    }

    /**
     * For a path that does not exist: the name a create was refused at, the first missing
     * component under the deepest directory that exists; empty when nothing of it exists.
     */
    static Optional<Path> firstMissing(Path path) {
        Path n = path.normalize();
        Path child = n;
        for (Path dir = n.getParent(); dir != null; child = dir, dir = dir.getParent()) {
            if (Files.isDirectory(dir)) {
                return Optional.of(child);
            }
            if (Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** The order to ask the policy in when the message leaves the access open. */
    static List<Operation> unknownOrder(Path path) {
        if (!Files.exists(path)) {
            return List.of(Operation.WRITE, Operation.READ, Operation.EXEC);
        }
        if (Files.isRegularFile(path) && Files.isExecutable(path)) {
            return List.of(Operation.EXEC, Operation.READ, Operation.WRITE);
        }
        return List.of(Operation.READ, Operation.WRITE, Operation.EXEC);
    }

    private record Key(Operation op, String subject) {
    }
}
