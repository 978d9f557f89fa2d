package dev.magus.workspace.quarantine;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A run's quarantine manifest as text: a header line ({@code magus-quarantine 1 RUN TIME}),
 * then one line per {@link Kept}, fields separated by tabs, a tab, newline or backslash in a
 * field escaped ({@code \t \n \\}). Pure.
 */
public final class Manifest {
    static final String MAGIC = "magus-quarantine";
    static final String VERSION = "1";

    private Manifest() {
    }

    /** A run's manifest: its id, when its first entry was kept, and the entries. */
    public record Run(String runId, Instant created, List<Kept> entries) {
        public Run {
            entries = List.copyOf(entries);
        }

        public long bytes() {
            return entries.stream().mapToLong(Kept::bytes).sum();
        }
    }

    public static String header(String runId, Instant created) {
        return String.join("\t", MAGIC, VERSION, escape(runId), created.toString()) + "\n";
    }

    public static String line(Kept k) {
        return String.join("\t", Integer.toString(k.index()), escape(k.code()), escape(k.change()), k.payload().word(),
                Long.toString(k.bytes()), escape(k.left()), k.at().toString(), escape(k.path().toString()),
                escape(k.what())) + "\n";
    }

    /** The manifest in {@code text}; empty when it is not one (a later version, a torn header). Torn lines are skipped. */
    public static Optional<Run> parse(String text) {
        String[] lines = text.split("\n", -1);
        String[] head = lines[0].split("\t", -1);
        if (head.length != 4 || !head[0].equals(MAGIC) || !head[1].equals(VERSION)) {
            return Optional.empty();
        }
        String runId = unescape(head[2]);
        Instant created;
        try {
            created = Instant.parse(head[3]);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        List<Kept> out = new ArrayList<>();
        // The last line is the empty one after the final newline, or one torn by a crash.
        for (int i = 1; i < lines.length - 1; i++) {
            String[] f = lines[i].split("\t", -1);
            if (f.length != 9) {
                continue;
            }
            try {
                out.add(new Kept(Integer.parseInt(f[0]), runId, Instant.parse(f[6]), unescape(f[1]), unescape(f[2]),
                        unescape(f[8]), Kept.Payload.valueOf(f[3].toUpperCase(java.util.Locale.ROOT)),
                        Long.parseLong(f[4]), unescape(f[5]), Path.of(unescape(f[7]))));
            } catch (RuntimeException e) {
                // a torn or foreign line: not an entry
            }
        }
        return Optional.of(new Run(runId, created, out));
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '\t' -> b.append("\\t");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    static String unescape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char e = s.charAt(++i);
                b.append(switch (e) {
                    case 't' -> '\t';
                    case 'n' -> '\n';
                    case 'r' -> '\r';
                    default -> e;
                });
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
