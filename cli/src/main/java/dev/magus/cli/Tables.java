package dev.magus.cli;

import java.util.ArrayList;
import java.util.List;

/** Aligned columns for the human output of the read-only commands. */
final class Tables {
    private Tables() {
    }

    /** Each row's cells padded to the widest cell of their column; the last column is not padded. */
    static List<String> align(List<List<String>> rows, String indent) {
        int columns = rows.stream().mapToInt(List::size).max().orElse(0);
        int[] width = new int[columns];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size() - 1; i++) {
                width[i] = Math.max(width[i], row.get(i).length());
            }
        }
        List<String> out = new ArrayList<>(rows.size());
        for (List<String> row : rows) {
            StringBuilder sb = new StringBuilder(indent);
            for (int i = 0; i < row.size(); i++) {
                String cell = row.get(i);
                sb.append(cell);
                if (i < row.size() - 1) {
                    sb.append(" ".repeat(width[i] - cell.length() + 2));
                }
            }
            out.add(sb.toString().stripTrailing());
        }
        return out;
    }

    /** Words joined with ", ", wrapped before {@code width} columns, each line after the first indented. */
    static List<String> wrap(List<String> words, String indent, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder(indent);
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i) + (i < words.size() - 1 ? "," : "");
            if (line.length() > indent.length() && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line = new StringBuilder(indent);
            }
            if (line.length() > indent.length()) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > indent.length()) {
            lines.add(line.toString());
        }
        return lines;
    }
}
