package dev.magus.policy.decl;

import dev.magus.events.Echo;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code $VAR} and {@code ${VAR}} in a magus.yaml path. An unset (or empty) variable is an
 * error, never an empty string: {@code $UNSET/} would otherwise grant {@code /}.
 */
final class Variables {
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern REFERENCE = Pattern.compile("\\$(?:\\{([A-Za-z_][A-Za-z0-9_]*)\\}|([A-Za-z_][A-Za-z0-9_]*))");

    private Variables() {
    }

    static boolean isName(String text) {
        return NAME.matcher(text).matches();
    }

    /** Throws MGS2004 when a {@code $} does not start a well-formed reference. */
    static void checkSyntax(String text, Site site, String field) {
        Matcher m = REFERENCE.matcher(text);
        int at = 0;
        while (true) {
            int dollar = text.indexOf('$', at);
            if (dollar < 0) {
                return;
            }
            if (!m.find(dollar) || m.start() != dollar) {
                throw Mgs2004.at(site, field, "malformed variable reference in path " + Echo.quoted(text)
                        + ": write $NAME or ${NAME}");
            }
            at = m.end();
        }
    }

    static String expand(String text, Map<String, String> env, Site site, String field) {
        checkSyntax(text, site, field);
        Matcher m = REFERENCE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            String value = Optional.ofNullable(env.get(name)).orElse("");
            if (value.isEmpty()) {
                throw Mgs2004.at(site, field, "path " + Echo.quoted(text) + " uses $" + name
                        + ", which is not set on this host; an unset variable would grant the wrong"
                        + " directory (or /), so set it or write the path out");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }
}
