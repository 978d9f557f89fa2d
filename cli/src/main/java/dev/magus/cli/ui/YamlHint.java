package dev.magus.cli.ui;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.representer.Representer;

/**
 * The {@code allow_yaml} of denials: one on one line of the status area (the same document in
 * YAML's flow style, so it still pastes into {@code magus.yaml} as it is), and several as one
 * block for the summary.
 */
final class YamlHint {
    private YamlHint() {
    }

    private static final String ALLOW = "sandbox:\n  allow:\n";

    /**
     * The blocks of several denials as one paste under one {@code sandbox:}: every
     * {@code sandbox.allow} entry once, its comments kept, then the other keys the blocks name
     * merged (maps key by key, lists without repeats), in the order given. A block that is not
     * YAML is appended as it is.
     */
    static String merged(List<String> yamls) {
        Set<String> entries = new LinkedHashSet<>();
        Map<String, Object> rest = new LinkedHashMap<>();
        Set<String> unreadable = new LinkedHashSet<>();
        Yaml y = new Yaml(new SafeConstructor(new LoaderOptions()));
        for (String text : yamls) {
            String block = text.strip() + "\n";
            if (block.startsWith(ALLOW)) {
                entries.add(block.substring(ALLOW.length()));
                continue;
            }
            try {
                if (y.load(block) instanceof Map<?, ?> doc && doc.get("sandbox") instanceof Map<?, ?> sandbox) {
                    merge(rest, sandbox);
                    continue;
                }
            } catch (YAMLException e) {
                // Kept as written below.
            }
            unreadable.add(block);
        }
        StringBuilder out = new StringBuilder();
        if (!entries.isEmpty() || !rest.isEmpty()) {
            out.append("sandbox:\n");
        }
        if (!entries.isEmpty()) {
            out.append("  allow:\n");
            entries.forEach(out::append);
        }
        if (!rest.isEmpty()) {
            DumperOptions options = new DumperOptions();
            options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
            options.setIndent(2);
            options.setIndicatorIndent(2);
            options.setIndentWithIndicator(true);
            new Yaml(new SafeConstructor(new LoaderOptions()), new Representer(options), options).dump(rest).lines()
                    .forEach(l -> out.append("  ").append(l).append('\n'));
        }
        unreadable.forEach(out::append);
        return out.toString();
    }

    @SuppressWarnings("unchecked")
    private static void merge(Map<String, Object> into, Map<?, ?> from) {
        for (Map.Entry<?, ?> e : from.entrySet()) {
            String key = String.valueOf(e.getKey());
            Object have = into.get(key);
            if (have instanceof Map<?, ?> m && e.getValue() instanceof Map<?, ?> more) {
                merge((Map<String, Object>) m, more);
            } else if (have instanceof List<?> l && e.getValue() instanceof List<?> more) {
                List<Object> union = new ArrayList<>(l);
                more.stream().filter(v -> !union.contains(v)).forEach(union::add);
                into.put(key, union);
            } else if (have == null) {
                into.put(key, e.getValue() instanceof Map<?, ?> m
                        ? new LinkedHashMap<>((Map<String, Object>) m) : e.getValue());
            }
        }
    }

    static String oneLine(String yaml) {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.FLOW);
        options.setSplitLines(false);
        options.setWidth(Integer.MAX_VALUE);
        Yaml y = new Yaml(new SafeConstructor(new LoaderOptions()), new Representer(options), options);
        try {
            Object document = y.load(yaml);
            if (document != null) {
                return y.dump(document).strip();
            }
        } catch (YAMLException e) {
            // Not YAML after all: the text itself, its lines joined, is still the best hint.
        }
        return String.join(" ", yaml.strip().lines().map(String::strip).toList());
    }
}
