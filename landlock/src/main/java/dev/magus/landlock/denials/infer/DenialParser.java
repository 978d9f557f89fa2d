package dev.magus.landlock.denials.infer;

import dev.magus.events.RunEvent;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognises permission-denied reports in a child's output lines.
 *
 * <p>Most tools put the path on the same line as the error; a few spread one report over
 * several lines (Node's and npm's error dump with its {@code syscall}/{@code path} lines,
 * cargo's and rustup's {@code Caused by:} chain, Python's traceback that says whether the
 * refused call was an exec). So a parser keeps a little context per stream: one instance per
 * run. It is safe to feed stdout and stderr from two threads.
 *
 * <p>The parser only proposes; a candidate means nothing until the policy confirms it.
 */
public final class DenialParser {

    /** A path in any of the quotes tools use, quotes included (see {@link #unquote}). */
    private static final String QUOTED = "'[^']+'|\u2018[^\u2019]+\u2019|\"[^\"]+\"|`[^`]+`";

    private static final String CURL_WARNING = "Warning: ";

    /**
     * The patterns, compiled the first time a line is parsed, not when the class is first used:
     * every confined run makes a parser, and a run that prints nothing (or only what no pattern
     * is tried on) never needs them (about 35 patterns, a few ms of a one-shot run).
     */
    private static final class Patterns {
        private static final Pattern ANSI = Pattern.compile(
                "\u001B(?:\\[[0-?]*[ -/]*[@-~]|\\][^\u0007\u001B]*(?:\u0007|\u001B\\\\)|[@-Z\\\\-_])");
        private static final Pattern NPM_PREFIX = Pattern.compile("^npm (?:ERR!|error|warn|WARN)\\s?");

        // --- single-line reports, most specific first ---

        private static final Pattern NODE = Pattern.compile(
                "EACCES: permission denied, (?<sys>\\w+) (?<p>" + QUOTED + ")(?: -> (?<p2>" + QUOTED + "))?");
        private static final Pattern NODE_SPAWN = Pattern.compile("\\bspawn(?:Sync)? (?<p>\\S+) EACCES\\b");
        private static final Pattern PYTHON = Pattern.compile(
                "\\[Errno 13\\] Permission denied: (?<p>" + QUOTED + ")(?: -> (?<p2>" + QUOTED + "))?");
        private static final Pattern JAVA_NIO = Pattern.compile(
                "java\\.nio\\.file\\.AccessDeniedException: (?<p>.+?)(?: -> (?<p2>.+?))?(?:: [^/]*)?$");
        private static final Pattern JAVA_IO = Pattern.compile(
                "java\\.io\\.FileNotFoundException: (?<p>.+) \\(Permission denied\\)$");
        private static final Pattern JAVA_EXEC = Pattern.compile(
                "Cannot run program \"(?<p>[^\"]+)\"(?: \\(in directory \"[^\"]*\"\\))?: error=13\\b");
        private static final Pattern RUST_AT = Pattern.compile(
                "(?<verb>.*?)Permission denied \\(os error 13\\) at path (?<p>" + QUOTED + ")");
        private static final Pattern RUST_INLINE = Pattern.compile(
                "(?<verb>.*?)(?<p>" + QUOTED + "):? Permission denied \\(os error 13\\)");
        private static final Pattern RUST_BARE = Pattern.compile(
                "^\\s*(?:error: |Caused by: |\\d+: )?Permission denied \\(os error 13\\)\\s*$");
        private static final Pattern GO_TWO = Pattern.compile(
                "(?:^|[\\s:])(?<sys>rename|link|symlink) (?<p>\\S+) (?<p2>\\S+): permission denied$");
        private static final Pattern GO = Pattern.compile(
                "(?:^|[\\s:])(?<sys>open|openat|create|mkdir|mkdirall|remove|unlink|unlinkat|rmdir|chmod|chown"
                        + "|truncate|lstat|stat|readlink|fork/exec|exec|opendir|readdirent|readdir|read|write)"
                        + " (?<p>(?:(?!: ).)+?): permission denied$");
        /**
         * A script author's {@code die "opendir $d: $!"} (Perl) or {@code err(1, "open %s", f)}
         * (C's err(3)): a system call's name, the path, and glibc's strerror text.
         */
        private static final Pattern SYSCALL_PREFIX = Pattern.compile(
                "^(?:[^:]+: )?(?<sys>open|opendir|mkdir|rmdir|unlink|remove|rename|chdir|creat|fopen|stat|lstat|readlink"
                        + "|truncate|symlink|link|exec|execve|execvp)(?:\\(\\))? (?<p>" + QUOTED + "|/\\S.*?|\\.{1,2}/.*?): Permission denied$");
        /** A path and glibc's strerror text, nothing else ({@code openssl}, {@code die "$f: $!"}): absolute paths only. */
        private static final Pattern BARE_PATH = Pattern.compile("^(?<p>/[^:]*[^:\\s]): Permission denied$");
        /** OpenSSL's error queue: {@code calling fopen(/x, r)} says the file and the mode. */
        private static final Pattern OPENSSL_FOPEN = Pattern.compile(
                ":Permission denied:.*calling fopen\\((?<p>[^,]+), (?<mode>[rwa])\\+?b?\\)");
        /** bash's and execve's {@code x.sh: /interp: bad interpreter: Permission denied}: the interpreter was refused. */
        private static final Pattern BAD_INTERPRETER = Pattern.compile(
                "(?:^|: )(?<p>/[^:]+|\\.{0,2}/?[^:\\s]+): bad interpreter: Permission denied$");
        private static final Pattern TAR = Pattern.compile(
                "^[^:]+: (?<p>" + QUOTED + "|.+?): Cannot (?<verb>open|mkdir|create|stat|read|write|lstat|utime|chdir)\\b"
                        + ".*: Permission denied$");
        private static final Pattern VERB = Pattern.compile(
                "(?<verb>(?i:cannot create(?: directory| regular file| symbolic link| special file| fifo)?"
                        + "|can't create|cannot touch|cannot remove|failed to remove|cannot open directory"
                        + "|cannot open output file|cannot open|can't open patch|can't open|cannot access|cannot read"
                        + "|can't read|Cannot open input file|failed to open|failed to create(?: symbolic link| hard link| directory)?"
                        + "|cannot overwrite|cannot move|cannot copy|cannot mkdir|can't mkdir|unable to mkdir|failed to mkdir"
                        + "|could not create work tree dir|could not lock config file"
                        + "|could not open|could not read(?: log file)?|could not write|could not create|unable to access"
                        + "|unable to create|unable to open|unable to write|unable to read|cannot stat|cannot write"
                        + "|couldn't open|couldn't create|couldn't read|couldn't write"
                        + "|failed to run command|failed to execute|cannot execute|can't execute|cannot run|couldn't exec"
                        + "|unable to execute|open failed))"
                        + "(?::| (?:input |output )?(?:file|directory|dir|database|archive)(?: or uri for loading)?:?)?"
                        + " (?<p>" + QUOTED + "|.+?)(?: to (?<p2>" + QUOTED + "|.+?))?(?: for (?<mode>reading|writing))?"
                        + "(?:: Permission denied| \\(Permission denied\\))$");
        private static final Pattern GENERIC = Pattern.compile(
                "^(?<prefix>\\S.*?): (?<p>" + QUOTED + "|[^:]+?): Permission denied$");
        /**
         * Tools whose message names a temporary file or a template in a directory, where the
         * file's name is random (or a template) and the directory is what was refused a create.
         * Matched before {@link #VERB}, which would take "temporary file in" for the path.
         */
        private static final Pattern TEMP_IN_DIR = Pattern.compile(
                "(?:cannot create temporary file in|couldn't create temporary directory in)"
                        + " (?<p>" + QUOTED + "|.+?): Permission denied$");
        private static final Pattern TEMP_FILE = Pattern.compile(
                "(?:couldn't open temporary file|cannot create temporary file|couldn't create temporary file"
                        + "|failed to create (?:file|directory) via template|mkstemp)"
                        + " (?<p>" + QUOTED + "|.+?)(?: failed)?: Permission denied(?: \\(13\\))?$");
        /** rsync: {@code rsync: [sender] send_files failed to open "/x": Permission denied (13)}. */
        private static final Pattern RSYNC = Pattern.compile(
                "^rsync: (?:\\[\\w+\\] )?(?<verb>[\\w ]*?) ?(?<p>\"[^\"]+\")(?: -> (?<p2>\"[^\"]+\"))?"
                        + "(?: failed)?: Permission denied \\(13\\)$");
        /** Perl's {@code Can't do inplace edit on /x: Cannot make temp name: Permission denied.} */
        private static final Pattern PERL_INPLACE = Pattern.compile(
                "^Can't do inplace edit on (?<p>.+?): Cannot make temp name: Permission denied$");
        /** Perl's {@code die}: the message, then where it died, and a full stop. */
        private static final Pattern PERL_AT = Pattern.compile(
                "^(?<body>.*Permission denied)(?: at (?<script>\\S+) line (?<n>\\d+)(?:, <[^>]*> (?:line|chunk) \\d+)?)?\\.$");
        /** curl reading a {@code file://} URL; the errno is not said, so the file must exist. */
        private static final Pattern CURL_READ = Pattern.compile("^curl: \\(37\\) Couldn't open file (?<p>.+)$");
        /**
         * curl's {@code -o} target, from its warning; the {@code (23) Failure writing output} after
         * it names no path. curl wraps a warning at 79 columns into several {@code Warning: } lines,
         * each piece keeping the blank it broke at (or cut mid-word), so the pieces concatenate back.
         */
        private static final Pattern CURL_WRITE = Pattern.compile(
                "^Failed to (?:open|create) the file (?<p>.+?): Permission denied$");
        private static final Pattern MAVEN_POM = Pattern.compile(
                "Non-readable POM (?<p>\\S.*?): .*\\(Permission denied\\)");
        /** libgit2 (cargo) says "is locked" for any EACCES on opening a file it reads. */
        private static final Pattern LIBGIT2_LOCKED = Pattern.compile(
                "failed open - (?<p>" + QUOTED + ") is locked: Permission denied");

        // --- multi-line context ---

        private static final Pattern DUMP_EACCES = Pattern.compile(
                "^\\s*(?:code:?\\s+'?EACCES'?|errno:?\\s+'?-13'?|Error: EACCES\\b).*");
        private static final Pattern DUMP_SYSCALL = Pattern.compile("^\\s*syscall:?\\s+'?(?<sys>[\\w/]+)");
        private static final Pattern DUMP_PATH = Pattern.compile(
                "^\\s*(?:path|dest):?\\s+(?<p>" + QUOTED + "|/\\S.*?)\\s*,?\\s*$");
        private static final Pattern RUST_CONTEXT = Pattern.compile(
                "(?<verb>failed to (?:read|write|open|create|remove|load|lock|copy|rename|hard link|symlink|get)"
                        + "|could not (?:read|write|open|create|lock|execute|load)"
                        + "|couldn't (?:read|write|open|create))[^`'\"\u2018]*?(?<p>" + QUOTED + ")");
        private static final Pattern PY_EXEC_FRAME = Pattern.compile(
                "_execute_child|child_exception_type|in _execvpe|in execv|os\\.exec");
        private static final Pattern DASH_NUMBER = Pattern.compile("^[^:]+: \\d+$");
        private static final Pattern BASH_LINE = Pattern.compile("^[^:]+: line \\d+$");
        private static final Pattern FILE_LINE = Pattern.compile("^[^\\s:]+:\\d+$");
        /** bash's prefix for a line of a script: {@code bash: line 3} ({@code -c}), {@code x.sh: line 3}. */
        private static final Pattern SHELL_SCRIPT_LINE = Pattern.compile("^(?<script>[^:]+): line (?<n>\\d+)$");
        /** A stack frame line (Java's {@code \tat x.y(Z.java:3)}, Node's {@code     at f (node:fs:1:2)}). */
        private static final Pattern FRAME = Pattern.compile("^\\s+at \\S.*");
        /** Java's and Node's frames of the call that opened the file, and which way it opened it. */
        private static final Pattern WRITE_FRAME = Pattern.compile(
                "\\bat (?:java\\.base/)?(?:java\\.io\\.(?:FileOutputStream|FileWriter|PrintWriter|PrintStream)\\b"
                        + "|java\\.nio\\.file\\.Files\\.(?:newOutputStream|newBufferedWriter|write|writeString|createFile"
                        + "|createDirector(?:y|ies)|createTempFile|createTempDirectory|copy|move|delete|deleteIfExists|createLink"
                        + "|createSymbolicLink)\\("
                        + "|(?:Object\\.|async )?(?:writeFileSync|appendFileSync|mkdirSync|copyFileSync|renameSync|unlinkSync"
                        + "|rmSync|rmdirSync|symlinkSync|linkSync|truncateSync|mkdtempSync|cpSync|writeFile|appendFile|mkdir"
                        + "|copyFile|rename|unlink|rm|rmdir|mkdtemp|createWriteStream)\\b)");
        private static final Pattern READ_FRAME = Pattern.compile(
                "\\bat (?:java\\.base/)?(?:java\\.io\\.(?:FileInputStream|FileReader)\\b"
                        + "|java\\.nio\\.file\\.Files\\.(?:newInputStream|newBufferedReader|readAllBytes|readString|readAllLines"
                        + "|lines|list|newDirectoryStream|walk|find|size)\\("
                        + "|(?:Object\\.|async )?(?:readFileSync|readdirSync|opendirSync|readlinkSync|realpathSync|readFile"
                        + "|readdir|opendir|createReadStream)\\b)");
        /** Python's traceback frame: the script (or {@code <string>} for {@code -c}) and its line. */
        private static final Pattern PY_FRAME = Pattern.compile("^\\s*File \"(?<script>[^\"]+)\", line (?<n>\\d+)");
        /** Words with a space and no quote, followed by a path: a message fragment, never a path. */
        private static final Pattern PHRASE = Pattern.compile("^[A-Za-z][\\w'-]*(?: [\\w'-]+)* (?:/|['\"`\u2018]).*");
    }

    private static final int DUMP_SPAN = 20;
    private static final int RUST_SPAN = 4;
    private static final int PY_SPAN = 25;
    /** How many stack-frame lines a report whose access the frames tell waits for them. */
    private static final int FRAME_SPAN = 12;

    private static final Set<String> READ_TOOLS = Set.of(
            "cat", "tac", "head", "tail", "grep", "egrep", "fgrep", "rg", "wc", "sort", "uniq", "cut", "sed",
            "awk", "gawk", "mawk", "diff", "cmp", "md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum",
            "base64", "od", "xxd", "hexdump", "strings", "file", "less", "more", "nl", "paste", "join",
            "comm", "find", "du", "ls", "zcat", "jq", "source", ".", "cc1", "cc1plus", "<command-line>");
    private static final Set<String> WRITE_TOOLS = Set.of(
            "tee", "touch", "mkdir", "rm", "rmdir", "mv", "ln", "truncate", "install", "shred");
    private static final Set<String> EXEC_TOOLS = Set.of(
            "env", "nice", "nohup", "timeout", "stdbuf", "setsid", "exec", "time", "xargs", "strace", "chrt");
    private static final Set<String> SHELLS = Set.of("bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "busybox");

    /** Per-stream memory of a report that spans lines. */
    private static final class StreamContext {
        long line;
        long dumpUntil = -1;
        AccessHint dumpHint = AccessHint.UNKNOWN;
        long rustUntil = -1;
        String rustPath = "";
        AccessHint rustHint = AccessHint.UNKNOWN;
        long pyExecUntil = -1;
        StringBuilder curlWarning;
        /** Python's last traceback frame, for the {@code PermissionError} that ends it. */
        ScriptLine pyAt;
        /** A report whose access the stack frames after it tell (Java, Node): held until they do. */
        List<Candidate> held = List.of();
        long heldUntil = -1;
    }

    private final Map<RunEvent.Stream, StreamContext> contexts = new EnumMap<>(RunEvent.Stream.class);

    /**
     * Candidates in one output line, usually none or one.
     *
     * @param line   the line as the child printed it (colour codes are ignored)
     * @param stream the stream it came on
     * @param cwd    the child's working directory, absolute, asked only when a candidate's path
     *               is relative
     */
    public synchronized List<Candidate> parse(String line, RunEvent.Stream stream, Cwd cwd) {
        StreamContext ctx = contexts.computeIfAbsent(stream, s -> new StreamContext());
        ctx.line++;
        String clean = strip(line);
        String text = Patterns.NPM_PREFIX.matcher(clean).replaceFirst("");
        List<Candidate> out = new ArrayList<>(1);
        Sink sink = new Sink(out, stream, clean, cwd);

        if (!ctx.held.isEmpty()) {
            AccessHint told = Patterns.WRITE_FRAME.matcher(text).find() ? AccessHint.WRITE
                    : Patterns.READ_FRAME.matcher(text).find() ? AccessHint.READ : AccessHint.UNKNOWN;
            if (told != AccessHint.UNKNOWN) {
                release(ctx, out, told);
                return List.copyOf(out);
            }
            if (Patterns.FRAME.matcher(text).matches() && ctx.line <= ctx.heldUntil) {
                return List.copyOf(out);
            }
            release(ctx, out, AccessHint.UNKNOWN);
        }
        if (text.startsWith("Traceback (most recent call last)")) {
            ctx.pyExecUntil = -1;
            ctx.pyAt = null;
        }
        Matcher frame = Patterns.PY_FRAME.matcher(text);
        if (frame.find()) {
            String script = frame.group("script");
            ctx.pyAt = new ScriptLine(script.equals("<string>") ? "-c" : script, Integer.parseInt(frame.group("n")));
        }
        if (Patterns.PY_EXEC_FRAME.matcher(text).find()) {
            ctx.pyExecUntil = ctx.line + PY_SPAN;
        }
        if (Patterns.DUMP_EACCES.matcher(text).matches()) {
            ctx.dumpUntil = ctx.line + DUMP_SPAN;
        }
        if (ctx.line <= ctx.dumpUntil) {
            Matcher m = Patterns.DUMP_SYSCALL.matcher(text);
            if (m.find()) {
                ctx.dumpHint = nodeSyscall(m.group("sys"));
                return out;
            }
            m = Patterns.DUMP_PATH.matcher(text);
            if (m.matches()) {
                sink.add(ctx.dumpHint, m.group("p"));
                return out;
            }
        }

        int warning = text.indexOf(CURL_WARNING);
        if (warning >= 0) {
            String piece = text.substring(warning + CURL_WARNING.length());
            if (ctx.curlWarning != null && warning == 0) {
                ctx.curlWarning.append(piece);
            } else {
                ctx.curlWarning = new StringBuilder(piece);
            }
            Matcher w = Patterns.CURL_WRITE.matcher(ctx.curlWarning);
            if (w.matches()) {
                ctx.curlWarning = null;
                sink.add(AccessHint.WRITE, w.group("p"));
                return List.copyOf(out);
            }
        } else {
            ctx.curlWarning = null;
        }

        // Every single-line report carries one of these; most lines carry none.
        boolean interesting = text.contains("ermission denied") || text.contains("EACCES")
                || text.contains("error=13") || text.contains("AccessDenied") || text.startsWith("curl: (37)");
        Matcher m;
        ScriptLine diedAt = null;
        if (interesting && text.endsWith(".") && (m = Patterns.PERL_AT.matcher(text)).matches()) {
            text = m.group("body");
            if (m.group("script") != null) {
                diedAt = new ScriptLine(m.group("script"), Integer.parseInt(m.group("n")));
            }
        }
        if (!interesting) {
            // Only the multi-line context below may apply.
        } else if ((m = Patterns.BAD_INTERPRETER.matcher(text)).find()) {
            sink.add(AccessHint.EXEC, m.group("p"));
        } else if ((m = Patterns.OPENSSL_FOPEN.matcher(text)).find()) {
            sink.add(m.group("mode").equals("r") ? AccessHint.READ : AccessHint.WRITE, m.group("p"));
        } else if ((m = Patterns.RSYNC.matcher(text)).matches()) {
            String verb = m.group("verb");
            if (verb.contains("mkstemp")) {
                sink.addParent(AccessHint.WRITE, m.group("p"));
            } else {
                AccessHint hint = rsyncVerb(verb);
                sink.add(hint, m.group("p"));
                sink.add(hint, m.group("p2"));
            }
        } else if ((m = Patterns.TEMP_IN_DIR.matcher(text)).find()) {
            sink.add(AccessHint.WRITE, m.group("p"));
        } else if ((m = Patterns.TEMP_FILE.matcher(text)).find()) {
            sink.addParent(AccessHint.WRITE, m.group("p"));
        } else if ((m = Patterns.PERL_INPLACE.matcher(text)).find()) {
            sink.add(AccessHint.WRITE, m.group("p"));
        } else if ((m = Patterns.CURL_READ.matcher(text)).matches()) {
            sink.addExisting(AccessHint.READ, m.group("p"));
        } else if ((m = Patterns.MAVEN_POM.matcher(text)).find()) {
            sink.add(AccessHint.READ, m.group("p"));
        } else if ((m = Patterns.LIBGIT2_LOCKED.matcher(text)).find()) {
            sink.add(AccessHint.READ, m.group("p"));
        } else if ((m = Patterns.NODE.matcher(text)).find()) {
            AccessHint hint = nodeSyscall(m.group("sys"));
            ctx.dumpUntil = ctx.line + DUMP_SPAN;
            ctx.dumpHint = hint;
            sink.add(hint, m.group("p"));
            sink.add(hint, m.group("p2"));
            if (hint == AccessHint.UNKNOWN) {
                // "open": the frames that follow (writeFileSync, readFileSync) say which way.
                hold(ctx, out);
            }
        } else if ((m = Patterns.NODE_SPAWN.matcher(text)).find()) {
            ctx.dumpUntil = ctx.line + DUMP_SPAN;
            ctx.dumpHint = AccessHint.EXEC;
            sink.add(AccessHint.EXEC, m.group("p"));
        } else if ((m = Patterns.PYTHON.matcher(text)).find()) {
            AccessHint hint = ctx.line <= ctx.pyExecUntil ? AccessHint.EXEC : AccessHint.UNKNOWN;
            ctx.pyExecUntil = -1;
            if (hint == AccessHint.UNKNOWN && ctx.pyAt != null && m.group("p2") == null) {
                // The traceback's last frame: the script's line says how the file was opened.
                sink.addFromScript(hint, m.group("p"), ctx.pyAt);
            } else {
                sink.add(hint, m.group("p"));
                sink.add(hint, m.group("p2"));
            }
        } else if ((m = Patterns.JAVA_EXEC.matcher(text)).find()) {
            sink.add(AccessHint.EXEC, m.group("p"));
        } else if ((m = Patterns.JAVA_NIO.matcher(text)).find()) {
            sink.add(AccessHint.UNKNOWN, m.group("p"));
            sink.add(AccessHint.UNKNOWN, m.group("p2"));
            hold(ctx, out);
        } else if ((m = Patterns.JAVA_IO.matcher(text)).find()) {
            sink.add(AccessHint.UNKNOWN, m.group("p"));
            hold(ctx, out);
        } else if ((m = Patterns.RUST_AT.matcher(text)).find()) {
            sink.add(verbHint(m.group("verb"), null), m.group("p"));
        } else if ((m = Patterns.RUST_INLINE.matcher(text)).find()) {
            sink.add(verbHint(m.group("verb"), null), m.group("p"));
        } else if (Patterns.RUST_BARE.matcher(text).matches()) {
            if (ctx.line <= ctx.rustUntil) {
                sink.add(ctx.rustHint, ctx.rustPath);
                ctx.rustUntil = -1;
            }
        } else if ((m = Patterns.GO_TWO.matcher(text)).find()) {
            sink.add(AccessHint.WRITE, m.group("p"));
            sink.add(AccessHint.WRITE, m.group("p2"));
        } else if ((m = Patterns.GO.matcher(text)).find()) {
            sink.add(goSyscall(m.group("sys")), m.group("p"));
        } else if ((m = Patterns.SYSCALL_PREFIX.matcher(text)).matches()) {
            sink.add(syscallHint(m.group("sys")), m.group("p"));
        } else if ((m = Patterns.TAR.matcher(text)).find()) {
            sink.add(tarVerb(m.group("verb")), m.group("p"));
        } else if ((m = Patterns.VERB.matcher(text)).find()) {
            AccessHint hint = verbHint(m.group("verb"), m.group("mode"));
            if (diedAt != null) {
                // A script's own words ("Can't open"): its open call says which way it opened.
                sink.addFromScript(hint, m.group("p"), diedAt);
                return List.copyOf(out);
            }
            sink.add(hint, m.group("p"));
            sink.add(hint, m.group("p2"));
        } else if ((m = Patterns.GENERIC.matcher(text)).matches()) {
            String p = m.group("p");
            if (!isNoise(p)) {
                Matcher sh = Patterns.SHELL_SCRIPT_LINE.matcher(m.group("prefix"));
                if (sh.matches()) {
                    // bash says the same for a redirection it could not open and a command it
                    // could not run; the script's line (its -c text, or its file) tells them apart.
                    String script = isShell(sh.group("script")) ? "-c" : sh.group("script");
                    sink.addFromScript(toolHint(m.group("prefix"), unquote(p)), p,
                            new ScriptLine(script, Integer.parseInt(sh.group("n"))));
                } else {
                    sink.add(toolHint(m.group("prefix"), unquote(p)), p);
                }
            }
        } else if ((m = Patterns.BARE_PATH.matcher(text)).matches()) {
            if (diedAt != null) {
                sink.addFromScript(AccessHint.UNKNOWN, m.group("p"), diedAt);
            } else {
                sink.add(AccessHint.UNKNOWN, m.group("p"));
            }
        }

        // A path named now may be the one a later bare "Permission denied (os error 13)" is about.
        Matcher rc = Patterns.RUST_CONTEXT.matcher(text);
        if (out.isEmpty() && rc.find()) {
            ctx.rustPath = rc.group("p");
            ctx.rustHint = verbHint(rc.group("verb"), null);
            ctx.rustUntil = ctx.line + RUST_SPAN;
        }
        return List.copyOf(out);
    }

    /**
     * The reports still held for their stack frames when the streams end; the parser is done
     * after this.
     */
    public synchronized List<Candidate> finish() {
        List<Candidate> out = new ArrayList<>();
        for (StreamContext ctx : contexts.values()) {
            release(ctx, out, AccessHint.UNKNOWN);
        }
        return List.copyOf(out);
    }

    /** Holds what this line found until the frames after it say the access. */
    private static void hold(StreamContext ctx, List<Candidate> found) {
        if (!found.isEmpty()) {
            ctx.held = List.copyOf(found);
            ctx.heldUntil = ctx.line + FRAME_SPAN;
            found.clear();
        }
    }

    /** The held reports, with the access the frames told (or as they were). */
    private static void release(StreamContext ctx, List<Candidate> out, AccessHint told) {
        for (Candidate c : ctx.held) {
            out.add(told == AccessHint.UNKNOWN || c.hint() != AccessHint.UNKNOWN ? c
                    : new Candidate(told, c.path(), c.stream(), c.line(), c.mustExist(), c.diedAt(), c.alternatives(), c.atStart()));
        }
        ctx.held = List.of();
        ctx.heldUntil = -1;
    }

    /** The line without Patterns.ANSI escape sequences and carriage returns. */
    public static String strip(String line) {
        String s = line.indexOf('\u001B') >= 0 ? Patterns.ANSI.matcher(line).replaceAll("") : line;
        return s.indexOf('\r') >= 0 ? s.replace("\r", "") : s;
    }

    static String unquote(String p) {
        if (p.length() >= 2) {
            char a = p.charAt(0);
            char b = p.charAt(p.length() - 1);
            if ((a == '\'' && b == '\'') || (a == '"' && b == '"') || (a == '`' && b == '`')
                    || (a == '\u2018' && b == '\u2019')) {
                return p.substring(1, p.length() - 1);
            }
        }
        return p.strip();
    }

    private static boolean isNoise(String p) {
        String s = unquote(p);
        if (s.equals(p) && s.contains(" ") && !s.contains("/")) {
            // Unquoted words without a slash ("connect to host x port 22") are a message, not a path.
            return true;
        }
        return s.isEmpty() || s.matches("\\d+|line \\d+|fatal error|error|warning|Cannot open");
    }

    private static AccessHint nodeSyscall(String sys) {
        String s = sys.toLowerCase(Locale.ROOT);
        if (s.startsWith("spawn") || s.equals("execve") || s.equals("uv_spawn")) {
            return AccessHint.EXEC;
        }
        return switch (s) {
            case "mkdir", "mkdtemp", "rmdir", "unlink", "rename", "copyfile", "cp", "symlink", "link", "utime",
                    "futime", "lutime", "truncate", "ftruncate", "write", "appendfile", "rm" -> AccessHint.WRITE;
            case "scandir", "opendir", "readdir", "read", "readfile", "readlink", "realpath", "access", "stat",
                    "lstat" -> AccessHint.READ;
            default -> AccessHint.UNKNOWN;
        };
    }

    /** The access a C library or system call's name implies (Perl's and C's own messages). */
    private static AccessHint syscallHint(String sys) {
        return switch (sys) {
            case "exec", "execve", "execvp" -> AccessHint.EXEC;
            case "mkdir", "rmdir", "unlink", "remove", "rename", "creat", "truncate", "symlink", "link" -> AccessHint.WRITE;
            case "opendir", "stat", "lstat", "readlink", "chdir" -> AccessHint.READ;
            default -> AccessHint.UNKNOWN;
        };
    }

    private static AccessHint goSyscall(String sys) {
        return switch (sys) {
            case "fork/exec", "exec" -> AccessHint.EXEC;
            case "create", "mkdir", "mkdirall", "remove", "unlink", "unlinkat", "rmdir", "chmod", "chown",
                    "truncate", "write" -> AccessHint.WRITE;
            case "lstat", "stat", "readlink", "opendir", "readdirent", "readdir", "read" -> AccessHint.READ;
            default -> AccessHint.UNKNOWN;
        };
    }

    private static AccessHint rsyncVerb(String verb) {
        if (verb.contains("mkdir") || verb.contains("rename") || verb.contains("symlink") || verb.contains("link")
                || verb.contains("unlink") || verb.contains("delete") || verb.contains("rmdir")
                || verb.contains("mknod") || verb.contains("chmod") || verb.contains("set times")) {
            return AccessHint.WRITE;
        }
        if (verb.contains("open") || verb.contains("stat") || verb.contains("readlink") || verb.contains("read")
                || verb.contains("chdir") || verb.contains("change_dir")) {
            return AccessHint.READ;
        }
        return AccessHint.UNKNOWN;
    }

    private static AccessHint tarVerb(String verb) {
        return switch (verb) {
            case "mkdir", "create", "write", "utime" -> AccessHint.WRITE;
            case "stat", "lstat", "read", "chdir" -> AccessHint.READ;
            default -> AccessHint.UNKNOWN;
        };
    }

    private static AccessHint verbHint(String verb, String mode) {
        if ("reading".equals(mode)) {
            return AccessHint.READ;
        }
        if ("writing".equals(mode)) {
            return AccessHint.WRITE;
        }
        String v = verb.toLowerCase(Locale.ROOT);
        if (v.contains("execute") || v.contains("run program") || v.contains("run command") || v.contains("cannot run")
                || v.contains("exec")) {
            return AccessHint.EXEC;
        }
        if (v.contains("create") || v.contains("touch") || v.contains("remove") || v.contains("write")
                || v.contains("overwrite") || v.contains("move") || v.contains("lock") || v.contains("rename")
                || v.contains("link") || v.contains("output file") || v.contains("work tree")
                || v.contains("temp dir") || v.contains("mkdir")) {
            return AccessHint.WRITE;
        }
        if (v.contains("read") || v.contains("open directory") || v.contains("access") || v.contains("stat")
                || v.contains("input file") || v.contains("patch") || v.contains("load")
                || v.endsWith("cannot open") || v.endsWith("can't open")) {
            return AccessHint.READ;
        }
        return AccessHint.UNKNOWN;
    }

    /** Whether {@code tool} (a command's name) is a shell. */
    static boolean isShell(String tool) {
        return SHELLS.contains(tool.substring(tool.lastIndexOf('/') + 1));
    }

    /** The access implied by {@code tool: path: Permission denied}, from who is talking. */
    private static AccessHint toolHint(String prefix, String path) {
        if (prefix.endsWith("fatal error")) {
            return AccessHint.READ;
        }
        if (Patterns.DASH_NUMBER.matcher(prefix).matches()) {
            // dash says "cannot create" for a write redirect and "cannot open" for a read, so a
            // bare path after the line number is a command it could not execute.
            return AccessHint.EXEC;
        }
        if (Patterns.FILE_LINE.matcher(prefix).matches()) {
            return AccessHint.READ;
        }
        String tool = prefix.contains(": ") ? prefix.substring(0, prefix.indexOf(": ")) : prefix;
        tool = tool.substring(tool.lastIndexOf('/') + 1);
        if (Patterns.BASH_LINE.matcher(prefix).matches() || SHELLS.contains(tool)) {
            // The same words for a command it could not run and a redirection it could not
            // open: what the path is (an executable file, a file, nothing yet) tells them apart.
            return AccessHint.UNKNOWN;
        }
        if (tool.equals("find") && path.startsWith("/") && Files.isRegularFile(Path.of(path))) {
            // find reads directories; a file it names is one its -exec could not run.
            return Files.isExecutable(Path.of(path)) ? AccessHint.EXEC : AccessHint.UNKNOWN;
        }
        if (READ_TOOLS.contains(tool)) {
            return AccessHint.READ;
        }
        if (WRITE_TOOLS.contains(tool)) {
            return AccessHint.WRITE;
        }
        if (EXEC_TOOLS.contains(tool)) {
            return AccessHint.EXEC;
        }
        return AccessHint.UNKNOWN;
    }

    /**
     * Where a script died, as Perl says it ({@code at x.pl line 1.}); the line's {@code open}
     * tells a read from a write when the message is the script author's own words.
     */
    public record ScriptLine(String script, int line) {
    }

    /**
     * Whether the kernel can have refused {@code path}: Landlock is asked only once the lookup
     * has found the file, or, for a name being made, its directory.
     */
    static boolean plausible(Path path, Candidate.Target target) {
        Path n = path.normalize();
        if (Files.exists(n, LinkOption.NOFOLLOW_LINKS)) {
            return true;
        }
        return target != Candidate.Target.EXISTING && n.getParent() != null && Files.isDirectory(n.getParent());
    }

    private record Sink(List<Candidate> out, RunEvent.Stream stream, String line, Cwd cwd) {
        void add(AccessHint hint, String raw) {
            emit(hint, raw, Candidate.Target.PATH, null);
        }

        /** A temporary file or template: its directory is what was refused. */
        void addParent(AccessHint hint, String raw) {
            emit(hint, raw, Candidate.Target.PARENT, null);
        }

        /** A message without an errno: only a file that exists can have been refused. */
        void addExisting(AccessHint hint, String raw) {
            emit(hint, raw, Candidate.Target.EXISTING, null);
        }

        void addFromScript(AccessHint hint, String raw, ScriptLine at) {
            emit(hint, raw, Candidate.Target.PATH, at);
        }

        private void emit(AccessHint hint, String raw, Candidate.Target target, ScriptLine at) {
            if (raw == null) {
                return;
            }
            String p = unquote(raw);
            if (p.isEmpty() || p.startsWith("~") || p.indexOf('\0') >= 0) {
                return;
            }
            if (p.equals(raw.strip()) && (Patterns.PHRASE.matcher(p).matches() || (p.contains(" ") && !p.contains("/")))) {
                // "temporary file /x/y", "file via template '/x'", "temporary file": an unquoted
                // verb phrase, not a path (a path with blanks is quoted, or has a slash).
                return;
            }
            try {
                Path given = Path.of(p);
                Path path = given.isAbsolute() ? given : cwd.get().resolve(given);
                if (target == Candidate.Target.PARENT) {
                    path = path.getParent();
                    if (path == null) {
                        return;
                    }
                }
                List<Path> alternatives = List.of();
                boolean atStart = true;
                if (!given.isAbsolute()) {
                    List<Path> elsewhere = cwd.elsewhere();
                    List<Path> told = elsewhere.isEmpty() ? List.of() : cwd.changedInto().stream()
                            .map(d -> target == Candidate.Target.PARENT ? d.resolve(given).getParent() : d.resolve(given))
                            .filter(q -> q != null && plausible(q, target)).map(Path::normalize).distinct().toList();
                    if (told.size() == 1) {
                        // The command line changed into one directory where the path can have
                        // been refused: the child was there ("cd sub && cat ../x", "git -C d").
                        path = told.get(0);
                        atStart = false;
                    } else if (!elsewhere.isEmpty()) {
                        // The child's cwd is unknown: every base where the path could have been
                        // refused (it exists, or its directory does) is a candidate; the policy
                        // must then refuse exactly one of them.
                        List<Path> plausible = new ArrayList<>();
                        atStart = plausible(path, target);
                        if (atStart) {
                            plausible.add(path);
                        }
                        for (Path base : elsewhere) {
                            Path alt = target == Candidate.Target.PARENT ? base.resolve(given).getParent()
                                    : base.resolve(given);
                            if (alt != null && plausible(alt, target)
                                    && plausible.stream().noneMatch(q -> q.normalize().equals(alt.normalize()))) {
                                plausible.add(alt);
                            }
                        }
                        if (plausible.isEmpty()) {
                            return;
                        }
                        path = plausible.get(0);
                        alternatives = List.copyOf(plausible.subList(1, plausible.size()));
                    }
                }
                if (path.isAbsolute()) {
                    out.add(new Candidate(hint, path, stream, line, target == Candidate.Target.EXISTING,
                            java.util.Optional.ofNullable(at), alternatives, atStart));
                }
            } catch (InvalidPathException e) {
                // Not a path after all (a message fragment); nothing was refused there.
            }
        }
    }

    /**
     * The child's working directory, asked only when a line names a relative path: for a
     * live child it is a readlink of {@code /proc/<pid>/cwd}, which no line without a denial
     * should pay for.
     */
    @FunctionalInterface
    public interface Cwd {
        Path get();

        /**
         * When {@link #get} is only the directory the child started in (the child has gone,
         * so where it had {@code cd}'d to can no longer be read), the other directories it may
         * have been in: the start directory's subdirectories, a bounded walk. Empty when
         * {@link #get} is the child's live working directory.
         */
        default List<Path> elsewhere() {
            return List.of();
        }

        /**
         * The directories the run's command line changes into before it names a path
         * ({@code cd d && ...}, {@code -C d}); asked only when {@link #elsewhere} is not empty.
         */
        default List<Path> changedInto() {
            return List.of();
        }
    }
}
