package dev.magus.cli.ui;

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
    static String merged(java.util.List<String> yamls) {
        java.util.Set<String> entries = new java.util.LinkedHashSet<>();
        java.util.Map<String, Object> rest = new java.util.LinkedHashMap<>();
        java.util.Set<String> unreadable = new java.util.LinkedHashSet<>();
        Yaml y = new Yaml(new SafeConstructor(new LoaderOptions()));
        for (String text : yamls) {
            String block = text.strip() + "\n";
            if (block.startsWith(ALLOW)) {
                entries.add(block.substring(ALLOW.length()));
                continue;
            }
            try {
                if (y.load(block) instanceof java.util.Map<?, ?> doc && doc.get("sandbox") instanceof java.util.Map<?, ?> sandbox) {
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
    private static void merge(java.util.Map<String, Object> into, java.util.Map<?, ?> from) {
        for (java.util.Map.Entry<?, ?> e : from.entrySet()) {
            String key = String.valueOf(e.getKey());
            Object have = into.get(key);
            if (have instanceof java.util.Map<?, ?> m && e.getValue() instanceof java.util.Map<?, ?> more) {
                merge((java.util.Map<String, Object>) m, more);
            } else if (have instanceof java.util.List<?> l && e.getValue() instanceof java.util.List<?> more) {
                java.util.List<Object> union = new java.util.ArrayList<>(l);
                more.stream().filter(v -> !union.contains(v)).forEach(union::add);
                into.put(key, union);
            } else if (have == null) {
                into.put(key, e.getValue() instanceof java.util.Map<?, ?> m
                        ? new java.util.LinkedHashMap<>((java.util.Map<String, Object>) m) : e.getValue());
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
