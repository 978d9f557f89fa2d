package dev.magus.landlock.denials.infer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the run's own command line says about an access its output leaves open: the script
 * of {@code perl -e} or {@code sh -c}, whose line a message names ({@code at -e line 1.},
 * {@code bash: line 1: /x: Permission denied}), and curl's {@code -o} file, which
 * {@code curl -sS} never names when it fails ({@code (23) Failure writing output}). Only the
 * command magus itself started is read; nothing a child later ran.
 *
 * @param argv the run's command, as magus started it
 */
public record CommandLine(List<String> argv) {

    /** No command line known. */
    public static final CommandLine NONE = new CommandLine(List.of());

    /** {@code > f}, {@code >> f}, {@code >| f}, {@code &> f}; not {@code 2>&1}. */
    private static final Pattern SHELL_WRITE = Pattern.compile("(?:^|[^<>&0-9])(?:[0-9]|&)?>{1,2}\\|?\\s*(?!&)(?<p>[^\\s;|&<>)]+)");
    /** {@code < f}, not {@code <<} (a here-document) nor {@code <(} (a process substitution). */
    private static final Pattern SHELL_READ = Pattern.compile("(?:^|[^<])<(?![<(&])\\s*(?<p>[^\\s;|&<>)]+)");
    private static final Pattern PERL_WRITE_OPEN = Pattern.compile(
            "\\bopen\\s*\\(?[^;]*?['\"]\\s*(?:\\+?>|\\+<)|\\bsysopen\\b.*\\bO_(?:WRONLY|RDWR|APPEND|CREAT)\\b");
    private static final Pattern PERL_READ_OPEN = Pattern.compile("\\bopen\\s*\\(?[^;]*?['\"]\\s*<");
    /** Python's {@code open(f, mode)}: the arguments, whose mode says the access. */
    private static final Pattern PY_OPEN = Pattern.compile("\\bopen\\s*\\((?<args>[^()]*)\\)");
    private static final Pattern PY_MODE = Pattern.compile(",\\s*(?:mode\\s*=\\s*)?[rbu]?['\"](?<mode>[rwxabt+]+)['\"]");
    /** Python calls that make, change or remove what they name; and those that read it. */
    private static final Pattern PY_WRITE_CALL = Pattern.compile(
            "(?:\\.(?:write_text|write_bytes|touch|mkdir|unlink|rmdir|rename|replace|symlink_to|hardlink_to)"
                    + "|\\bos\\.(?:mkdir|makedirs|remove|unlink|rmdir|removedirs|rename|renames|replace|symlink|link|truncate"
                    + "|mkfifo|utime)|\\bshutil\\.(?:rmtree|make_archive))\\s*\\((?<args>[^()]*)\\)");
    private static final Pattern PY_READ_CALL = Pattern.compile(
            "(?:\\.(?:read_text|read_bytes|iterdir|glob|rglob)|\\bos\\.(?:listdir|scandir|walk))\\s*\\((?<args>[^()]*)\\)");
    /** shutil's copies and moves: the first argument is read, the second written. */
    private static final Pattern PY_COPY = Pattern.compile("\\bshutil\\.(?:copy\\w*|move)\\s*\\((?<src>[^,()]*),(?<dst>[^()]*)\\)");
    /** Where one shell command of a list ends: {@code ;}, {@code &&}, {@code ||}, {@code |}, a newline, a parenthesis. */
    private static final Pattern SHELL_SEPARATOR = Pattern.compile("&&|\\|\\||[;|\\n()]");

    public CommandLine {
        argv = List.copyOf(Objects.requireNonNull(argv, "argv"));
    }

    /** The command's name, without its directory. */
    String tool() {
        if (argv.isEmpty()) {
            return "";
        }
        String a = argv.get(0);
        return a.substring(a.lastIndexOf('/') + 1);
    }

    /**
     * The text of an inline script, for {@code script} as a message names it: {@code -e}
     * (Perl: every {@code -e}/{@code -E} argument, one line each, as Perl joins them) or
     * {@code -c} (a shell: the argument after {@code -c}).
     */
    Optional<String> inlineScript(String script) {
        String tool = tool();
        if (script.equals("-e") && tool.startsWith("perl")) {
            List<String> lines = new ArrayList<>();
            for (int i = 1; i + 1 < argv.size(); i++) {
                String a = argv.get(i);
                if (a.equals("--")) {
                    break;
                }
                if (a.equals("-e") || a.equals("-E")) {
                    lines.add(argv.get(++i));
                }
            }
            return lines.isEmpty() ? Optional.empty() : Optional.of(String.join("\n", lines));
        }
        if (script.equals("-c") && tool.startsWith("python")) {
            for (int i = 1; i + 1 < argv.size(); i++) {
                if (argv.get(i).equals("-c")) {
                    return Optional.of(argv.get(i + 1));
                }
            }
            return Optional.empty();
        }
        if (script.equals("-c") && DenialParser.isShell(tool)) {
            for (int i = 1; i + 1 < argv.size(); i++) {
                String a = argv.get(i);
                if (!a.startsWith("-")) {
                    break;
                }
                if (a.startsWith("-") && !a.startsWith("--") && a.contains("c")) {
                    return Optional.of(argv.get(i + 1));
                }
            }
        }
        return Optional.empty();
    }

    /** curl's output file ({@code -o F}, {@code -oF}, {@code --output F}, {@code --output=F}). */
    Optional<String> curlOutput() {
        return tool().equals("curl") ? curlOutput(argv) : Optional.empty();
    }

    /**
     * curl's output file as an absolute path: in the command magus started, or in the
     * commands of its {@code sh -c} script, where the {@code cd}s before it place it; also
     * {@code -O}'s, the URL's last segment.
     */
    Optional<Path> curlOutput(Path start) {
        for (Command c : commands(start)) {
            List<String> words = c.words();
            if (words.isEmpty() || !words.get(0).substring(words.get(0).lastIndexOf('/') + 1).equals("curl")) {
                continue;
            }
            Optional<String> out = curlOutput(words);
            if (out.isPresent() && !out.get().equals("-")) {
                return resolve(c.cwd(), out.get());
            }
            if (words.contains("-O") || words.contains("--remote-name") || words.stream().anyMatch(w -> w.matches("-[a-zA-Z]*O"))) {
                for (String w : words.subList(1, words.size())) {
                    int scheme = w.indexOf("://");
                    if (scheme > 0) {
                        String name = w.substring(w.lastIndexOf('/') + 1).replaceAll("[?#].*", "");
                        return name.isEmpty() ? Optional.empty() : resolve(c.cwd(), name);
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> curlOutput(List<String> words) {
        for (int i = 1; i < words.size(); i++) {
            String a = words.get(i);
            if ((a.equals("-o") || a.equals("--output")) && i + 1 < words.size()) {
                return Optional.of(words.get(i + 1));
            }
            if (a.startsWith("--output=")) {
                return Optional.of(a.substring("--output=".length()));
            }
            if (a.startsWith("-o") && a.length() > 2) {
                return Optional.of(a.substring(2));
            }
        }
        return Optional.empty();
    }

    /**
     * The directories the command changes into before it names a path: each {@code cd} of its
     * {@code sh -c} script, and a {@code -C DIR} (git, make, tar) or {@code --directory=DIR},
     * each resolved from the one before. Where a relative path in a message may lie, once the
     * child that printed it has gone.
     */
    List<Path> changedInto(Path start) {
        List<Path> out = new ArrayList<>();
        for (Command c : commands(start)) {
            if (!c.cwd().equals(start) && !out.contains(c.cwd())) {
                out.add(c.cwd());
            }
            List<String> w = c.words();
            for (int i = 1; i < w.size(); i++) {
                String a = w.get(i);
                Optional<Path> dir = Optional.empty();
                if ((a.equals("-C") || a.equals("--directory")) && i + 1 < w.size()) {
                    dir = resolve(c.cwd(), w.get(i + 1));
                } else if (a.startsWith("--directory=")) {
                    dir = resolve(c.cwd(), a.substring("--directory=".length()));
                } else if (a.startsWith("-C") && a.length() > 2 && !a.contains("=")) {
                    dir = resolve(c.cwd(), a.substring(2));
                }
                dir.filter(d -> !out.contains(d)).ifPresent(out::add);
            }
        }
        return List.copyOf(out);
    }

    /** One simple command: its words and the directory it runs in. */
    record Command(Path cwd, List<String> words) {
    }

    /**
     * The commands magus started: its argv, or, for {@code sh -c}, each command of the script
     * with the directory its earlier {@code cd}s left (a {@code cd} to a word with {@code $},
     * {@code ~} or a glob leaves the directory unknown, and later commands are not placed).
     */
    List<Command> commands(Path start) {
        Optional<String> script = inlineScript("-c").filter(t -> DenialParser.isShell(tool()));
        if (script.isEmpty()) {
            return argv.isEmpty() ? List.of() : List.of(new Command(start, argv));
        }
        List<Command> out = new ArrayList<>();
        Path cwd = start;
        for (String part : SHELL_SEPARATOR.split(script.get())) {
            List<String> words = words(part);
            if (words.isEmpty()) {
                continue;
            }
            out.add(new Command(cwd, words));
            if (words.get(0).equals("cd") && words.size() >= 2) {
                Optional<Path> to = resolve(cwd, words.get(1));
                if (to.isEmpty()) {
                    break;
                }
                cwd = to.get();
            }
        }
        return List.copyOf(out);
    }

    /** A shell command's words: blanks split, quotes removed; a redirection's target is no word. */
    private static List<String> words(String command) {
        List<String> out = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        boolean in = false;
        char quote = 0;
        for (int i = 0; i < command.length(); i++) {
            char ch = command.charAt(i);
            if (quote != 0) {
                if (ch == quote) {
                    quote = 0;
                } else {
                    w.append(ch);
                }
            } else if (ch == '\'' || ch == '"') {
                quote = ch;
                in = true;
            } else if (ch == ' ' || ch == '\t') {
                if (in) {
                    out.add(w.toString());
                    w.setLength(0);
                    in = false;
                }
            } else {
                w.append(ch);
                in = true;
            }
        }
        if (in) {
            out.add(w.toString());
        }
        out.removeIf(x -> x.startsWith(">") || x.startsWith("<") || x.matches("\\d?>.*|&>.*"));
        return out;
    }

    private static Optional<Path> resolve(Path cwd, String word) {
        if (word.isEmpty() || word.contains("$") || word.startsWith("~") || word.contains("*") || word.contains("`")) {
            return Optional.empty();
        }
        try {
            return Optional.of(cwd.resolve(word).normalize());
        } catch (java.nio.file.InvalidPathException e) {
            return Optional.empty();
        }
    }

    /**
     * The access a script's line shows on {@code file}: a Perl {@code open} mode, or a shell
     * redirection whose target names {@code file}; {@code said} when the line shows none.
     */
    static AccessHint access(String line, Path file, AccessHint said) {
        if (PERL_WRITE_OPEN.matcher(line).find()) {
            return AccessHint.WRITE;
        }
        if (PERL_READ_OPEN.matcher(line).find()) {
            return AccessHint.READ;
        }
        Optional<AccessHint> python = pythonAccess(line, file);
        if (python.isPresent()) {
            return python.get();
        }
        if (names(SHELL_WRITE.matcher(line), file)) {
            return AccessHint.WRITE;
        }
        if (names(SHELL_READ.matcher(line), file)) {
            return AccessHint.READ;
        }
        return said;
    }

    /**
     * The access a Python line shows on {@code file}: the call whose arguments name it
     * ({@code open} with its mode, a write or read call of {@code os}, {@code pathlib},
     * {@code shutil}); empty when no call names it.
     */
    static Optional<AccessHint> pythonAccess(String line, Path file) {
        Path last = file.getFileName();
        if (last == null) {
            return Optional.empty();
        }
        String name = last.toString();
        Matcher copy = PY_COPY.matcher(line);
        while (copy.find()) {
            if (copy.group("dst").contains(name)) {
                return Optional.of(AccessHint.WRITE);
            }
            if (copy.group("src").contains(name)) {
                return Optional.of(AccessHint.READ);
            }
        }
        Matcher open = PY_OPEN.matcher(line);
        while (open.find()) {
            String args = open.group("args");
            if (args.contains(name)) {
                Matcher mode = PY_MODE.matcher(args);
                boolean writes = mode.find() && mode.group("mode").matches(".*[wxa+].*");
                return Optional.of(writes ? AccessHint.WRITE : AccessHint.READ);
            }
        }
        Matcher write = PY_WRITE_CALL.matcher(line);
        while (write.find()) {
            return Optional.of(AccessHint.WRITE);
        }
        Matcher read = PY_READ_CALL.matcher(line);
        while (read.find()) {
            return Optional.of(AccessHint.READ);
        }
        return Optional.empty();
    }

    private static boolean names(Matcher m, Path file) {
        Path name = file.getFileName();
        while (m.find()) {
            String p = DenialParser.unquote(m.group("p"));
            int slash = p.lastIndexOf('/');
            String last = slash >= 0 ? p.substring(slash + 1) : p;
            if (name != null && name.toString().equals(last)) {
                return true;
            }
        }
        return false;
    }

    /** Line {@code n} (from 1) of {@code text}. */
    static Optional<String> line(String text, int n) {
        String[] lines = text.split("\n", -1);
        return n >= 1 && n <= lines.length ? Optional.of(lines[n - 1]) : Optional.empty();
    }
}
