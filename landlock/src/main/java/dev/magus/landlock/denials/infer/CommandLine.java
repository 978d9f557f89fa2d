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
        if (!tool().equals("curl")) {
            return Optional.empty();
        }
        for (int i = 1; i < argv.size(); i++) {
            String a = argv.get(i);
            if ((a.equals("-o") || a.equals("--output")) && i + 1 < argv.size()) {
                return Optional.of(argv.get(i + 1));
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
        if (names(SHELL_WRITE.matcher(line), file)) {
            return AccessHint.WRITE;
        }
        if (names(SHELL_READ.matcher(line), file)) {
            return AccessHint.READ;
        }
        return said;
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
