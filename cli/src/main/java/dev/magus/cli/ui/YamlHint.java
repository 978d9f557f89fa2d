package dev.magus.cli.ui;

import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.representer.Representer;

/**
 * The {@code allow_yaml} of a denial on one line of the status area: the same document in
 * YAML's flow style, so it still pastes into {@code magus.yaml} as it is.
 */
final class YamlHint {
    private YamlHint() {
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
