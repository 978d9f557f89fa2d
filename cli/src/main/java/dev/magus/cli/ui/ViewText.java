package dev.magus.cli.ui;

import dev.magus.events.Code;
import dev.magus.events.Layer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;

/**
 * A {@link ViewState} as styled lines: the status area while the run goes and the summary
 * once it ended. Pure (no terminal): the terminal decides only how the styles are drawn.
 * ASCII only, so a terminal in the C locale draws it as well as a UTF-8 one.
 */
public final class ViewText {
    private static final AttributedStyle HEADER = AttributedStyle.INVERSE;
    private static final AttributedStyle LABEL = AttributedStyle.DEFAULT.faint();
    private static final AttributedStyle DENIED = AttributedStyle.BOLD.foreground(AttributedStyle.RED);
    private static final AttributedStyle HINT = AttributedStyle.DEFAULT.foreground(AttributedStyle.GREEN);
    private static final Pattern CONTROL = Pattern.compile("\\p{Cntrl}");
    private static final Pattern PLAIN_ARG = Pattern.compile("[A-Za-z0-9_./:=+@%,-]+");

    private ViewText() {
    }

    /** The status area: a header, the counters, then one line per recent denial. */
    public static List<AttributedString> status(ViewState s) {
        List<AttributedString> out = new ArrayList<>();
        out.add(new AttributedStringBuilder()
                .style(HEADER)
                .append(" magus run ").append(s.running() ? "running " : "ended ").append(clock(s.elapsed()))
                .append(s.mode().map(m -> "  mode " + m.spelling()).orElse(""))
                .append(s.pid() == 0 ? "" : "  pid " + s.pid())
                .append("  $ ").append(commandLine(s.command())).append(' ')
                .toAttributedString());
        AttributedStringBuilder counters = new AttributedStringBuilder()
                .style(LABEL).append(" diagnostics ").style(AttributedStyle.DEFAULT);
        if (s.counts().isEmpty()) {
            counters.append("none yet");
        }
        for (Map.Entry<Code, Long> c : s.counts().entrySet()) {
            counters.style(c.getKey().severity() == dev.magus.events.Severity.ERROR ? DENIED : AttributedStyle.DEFAULT)
                    .append(c.getKey().name()).style(AttributedStyle.DEFAULT).append(" x" + c.getValue() + "  ");
        }
        counters.style(LABEL).append("  denials ").style(AttributedStyle.DEFAULT).append(Long.toString(s.deniedTotal()))
                .style(LABEL).append(" distinct ").style(AttributedStyle.DEFAULT).append(Long.toString(s.distinct()))
                .style(LABEL).append("  output ").style(AttributedStyle.DEFAULT).append(s.lines() + " lines");
        out.add(counters.toAttributedString());
        for (ViewState.Denial d : s.denials()) {
            AttributedStringBuilder b = new AttributedStringBuilder()
                    .style(DENIED).append(" denied ").append(String.format("%-5s", d.right().label()))
                    .style(AttributedStyle.DEFAULT).append(" ").append(layer(d.layer())).append(" ")
                    .append(d.path()).style(LABEL).append("  ").append(d.code().name()).append("  allow: ");
            d.allowHint().ifPresentOrElse(
                    h -> b.style(HINT).append(h),
                    () -> b.append("no declaration can allow this"));
            out.add(b.toAttributedString());
        }
        return List.copyOf(out);
    }

    /** The lines that stay on the terminal once the run ended and the status area is gone. */
    public static List<AttributedString> summary(ViewState s) {
        List<AttributedString> out = new ArrayList<>();
        ViewState.Ending end = s.ending().orElseThrow(() -> new IllegalStateException("the run has not ended"));
        String how = end.signal() != 0 ? "ended by signal " + end.signal()
                : s.pid() == 0 ? "did not start" : "exited";
        AttributedStringBuilder head = new AttributedStringBuilder()
                .style(AttributedStyle.BOLD).append("magus: ").append(how).append(", status " + end.status())
                .style(AttributedStyle.DEFAULT).append(" after ").append(clock(end.duration()))
                .append("; ").append(s.lines() + " output lines, ").append(s.diagnosticsTotal() + " diagnostics");
        if (!s.counts().isEmpty()) {
            head.append(": ").append(String.join(", ",
                    s.counts().entrySet().stream().map(c -> c.getKey().name() + " x" + c.getValue()).toList()));
        }
        out.add(head.toAttributedString());
        if (s.deniedTotal() > 0) {
            long older = s.distinct() - s.denials().size();
            out.add(new AttributedStringBuilder().style(DENIED)
                    .append("magus: " + s.deniedTotal() + (s.deniedTotal() == 1 ? " access denied" : " accesses denied"))
                    .style(AttributedStyle.DEFAULT)
                    .append(", " + s.distinct() + " distinct")
                    .append(older > 0 ? " (the latest " + s.denials().size() + " below, " + older + " more above)" : "")
                    .toAttributedString());
        }
        List<String> hints = new ArrayList<>();
        for (ViewState.Denial d : s.denials()) {
            out.add(new AttributedStringBuilder()
                    .append("  ").style(DENIED).append(d.right().label()).style(AttributedStyle.DEFAULT)
                    .append(" ").append(d.path()).append(" ").append(layer(d.layer()))
                    .append(" ").append(d.code().name())
                    .append(d.allowYaml().isPresent() ? "" : "; no declaration can allow this")
                    .toAttributedString());
            d.allowYaml().ifPresent(hints::add);
        }
        if (!hints.isEmpty()) {
            // One block for all of them: the same "sandbox: allow:" once, each entry once.
            out.add(new AttributedStringBuilder().append("magus: to allow " + (hints.size() == 1 ? "it" : "them")
                    + ", add to magus.yaml:").toAttributedString());
            YamlHint.merged(hints).strip().lines().forEach(l ->
                    out.add(new AttributedStringBuilder().append("    ").style(HINT).append(l).toAttributedString()));
        }
        return List.copyOf(out);
    }

    /**
     * {@code line} cut into rows of at most {@code width} columns at spaces, never inside a
     * word unless one word is longer than a row; rows after the first are indented by four
     * spaces. Styles are kept. For magus's own lines: a child's output is never re-wrapped.
     */
    public static List<AttributedString> wrap(AttributedString line, int width) {
        String indent = "    ";
        if (width <= indent.length() + 8 || line.columnLength() <= width) {
            return List.of(line);
        }
        List<AttributedString> rows = new ArrayList<>();
        String text = line.toString();
        int start = 0;
        int room = width;
        while (text.length() - start > room) {
            int cut = text.lastIndexOf(' ', start + room);
            if (cut <= start) {
                cut = start + room;
            }
            rows.add(row(rows.isEmpty() ? "" : indent, line.subSequence(start, cut)));
            start = cut;
            while (start < text.length() && text.charAt(start) == ' ') {
                start++;
            }
            room = width - indent.length();
        }
        if (start < text.length()) {
            rows.add(row(rows.isEmpty() ? "" : indent, line.subSequence(start, text.length())));
        }
        return List.copyOf(rows);
    }

    private static AttributedString row(String indent, AttributedString part) {
        return indent.isEmpty() ? part : new AttributedStringBuilder().append(indent).append(part).toAttributedString();
    }

    /** {@code 0:03.2}, {@code 12:00.0}, {@code 1:02:03}: tenths while short, seconds once long. */
    static String clock(Duration d) {
        long tenths = d.toMillis() / 100;
        long seconds = tenths / 10;
        if (seconds >= 3600) {
            return String.format("%d:%02d:%02d", seconds / 3600, (seconds / 60) % 60, seconds % 60);
        }
        return String.format("%d:%02d.%d", seconds / 60, seconds % 60, tenths % 10);
    }

    /** argv as a person would type it again in a POSIX shell, on one line (control characters shown as {@code ?}). */
    static String commandLine(List<String> argv) {
        return CONTROL.matcher(String.join(" ", argv.stream().map(ViewText::quote).toList())).replaceAll("?");
    }

    private static String quote(String arg) {
        if (PLAIN_ARG.matcher(arg).matches()) {
            return arg;
        }
        return "'" + arg.replace("'", "'\\''") + "'";
    }

    private static String layer(Layer layer) {
        return "[" + layer.label() + "]";
    }
}
