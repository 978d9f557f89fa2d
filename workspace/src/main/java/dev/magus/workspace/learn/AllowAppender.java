package dev.magus.workspace.learn;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Adds {@code sandbox.allow} entries to the text of a {@code magus.yaml}, leaving every other
 * line as it was (comments, order, quoting, blank lines): after the last item of an existing
 * block-style {@code allow:} list, else as a new {@code allow:} at the end of {@code sandbox:},
 * else as a new {@code sandbox:} at the end of the file. Pure text; the caller parses the
 * result before it writes anything, and a layout this cannot extend safely (a flow-style
 * {@code sandbox: {...}} or {@code allow: [...]}) is refused with the reason.
 */
public final class AllowAppender {

    private static final Pattern SANDBOX = Pattern.compile("^sandbox:\\s*(#.*)?$");
    private static final Pattern SANDBOX_INLINE = Pattern.compile("^sandbox:\\s*[^#\\s].*$");
    private static final Pattern KEY = Pattern.compile("^(\\s+)allow:\\s*(.*?)\\s*$");

    private AllowAppender() {
    }

    /** The new text, or why it cannot be extended. */
    public sealed interface Result {
        record Extended(String text) implements Result {
        }

        record Refused(String reason) implements Result {
        }
    }

    public static Result append(String text, List<Learned.Addition> additions) {
        if (additions.isEmpty()) {
            return new Result.Extended(text);
        }
        List<String> lines = new ArrayList<>(text.lines().toList());
        int sandbox = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (SANDBOX.matcher(lines.get(i)).matches()) {
                sandbox = i;
                break;
            }
            if (SANDBOX_INLINE.matcher(lines.get(i)).matches()) {
                return new Result.Refused("sandbox: is written in flow style on line " + (i + 1)
                        + "; add the entries by hand");
            }
        }
        if (sandbox < 0) {
            if (!lines.isEmpty() && !lines.get(lines.size() - 1).isBlank()) {
                lines.add("");
            }
            lines.add("sandbox:");
            lines.add("  allow:");
            additions.forEach(a -> lines.addAll(a.yaml("    ")));
            return new Result.Extended(join(lines));
        }
        int end = blockEnd(lines, sandbox, 0);
        int childIndent = childIndent(lines, sandbox, end).orElse(2);
        for (int i = sandbox + 1; i < end; i++) {
            Matcher k = KEY.matcher(lines.get(i));
            if (!k.matches() || k.group(1).length() != childIndent) {
                continue;
            }
            String rest = k.group(2);
            if (rest.equals("[]") || rest.startsWith("[]") && rest.substring(2).strip().startsWith("#")) {
                lines.set(i, " ".repeat(childIndent) + "allow:");
                List<String> items = new ArrayList<>();
                additions.forEach(a -> items.addAll(a.yaml(" ".repeat(childIndent + 2))));
                lines.addAll(i + 1, items);
                return new Result.Extended(join(lines));
            }
            if (!rest.isEmpty() && !rest.startsWith("#")) {
                return new Result.Refused("sandbox.allow is written in flow style on line " + (i + 1)
                        + "; add the entries by hand");
            }
            int itemIndent = itemIndent(lines, i, end).orElse(childIndent + 2);
            int allowEnd = i + 1;
            for (int j = i + 1; j < end; j++) {
                String l = lines.get(j);
                if (l.isBlank() || l.strip().startsWith("#")) {
                    continue;
                }
                int ind = indent(l);
                boolean item = ind == itemIndent && l.strip().startsWith("-");
                if (ind < itemIndent || ind == childIndent && !item) {
                    break;
                }
                allowEnd = j + 1;
            }
            List<String> items = new ArrayList<>();
            additions.forEach(a -> items.addAll(a.yaml(" ".repeat(itemIndent))));
            lines.addAll(allowEnd, items);
            return new Result.Extended(join(lines));
        }
        int last = lastContent(lines, sandbox, end);
        List<String> block = new ArrayList<>();
        block.add(" ".repeat(childIndent) + "allow:");
        additions.forEach(a -> block.addAll(a.yaml(" ".repeat(childIndent + 2))));
        lines.addAll(last + 1, block);
        return new Result.Extended(join(lines));
    }

    /** The index after the last line of the block opened at {@code start} (lines indented deeper than {@code indent}). */
    private static int blockEnd(List<String> lines, int start, int indent) {
        for (int i = start + 1; i < lines.size(); i++) {
            String l = lines.get(i);
            if (!l.isBlank() && !l.strip().startsWith("#") && indent(l) <= indent) {
                return i;
            }
        }
        return lines.size();
    }

    private static Optional<Integer> childIndent(List<String> lines, int start, int end) {
        for (int i = start + 1; i < end; i++) {
            String l = lines.get(i);
            if (!l.isBlank() && !l.strip().startsWith("#")) {
                return Optional.of(indent(l));
            }
        }
        return Optional.empty();
    }

    private static Optional<Integer> itemIndent(List<String> lines, int key, int end) {
        for (int i = key + 1; i < end; i++) {
            String l = lines.get(i);
            if (l.isBlank() || l.strip().startsWith("#")) {
                continue;
            }
            return l.strip().startsWith("-") ? Optional.of(indent(l)) : Optional.empty();
        }
        return Optional.empty();
    }

    private static int lastContent(List<String> lines, int start, int end) {
        int last = start;
        for (int i = start + 1; i < end; i++) {
            if (!lines.get(i).isBlank()) {
                last = i;
            }
        }
        return last;
    }

    private static int indent(String line) {
        int n = 0;
        while (n < line.length() && line.charAt(n) == ' ') {
            n++;
        }
        return n;
    }

    private static String join(List<String> lines) {
        return String.join("\n", lines) + "\n";
    }
}
