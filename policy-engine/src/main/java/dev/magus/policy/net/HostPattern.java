package dev.magus.policy.net;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A host an {@code allow} entry names: an exact host ({@code registry.npmjs.org},
 * {@code 10.0.0.5}) or every host below a domain ({@code *.example.org}, which matches
 * {@code a.example.org} and {@code a.b.example.org} but not {@code example.org} itself).
 * Compared without case and without a trailing dot, as DNS compares names.
 *
 * <p>What is refused, and why: {@code *} alone and a one-label suffix ({@code *.org}) would
 * open the whole internet or a whole top-level domain; a {@code *} anywhere but the leading
 * label is not a pattern any tool writes; a port ({@code host:443}) belongs in no host entry,
 * since the proxy lets a declared host through on any port; and anything that is not a DNS
 * name or an IP literal cannot be a host.
 *
 * @param text the canonical form: lower case, no trailing dot; an IPv6 literal in brackets
 */
public record HostPattern(String text) {
    private static final Pattern LABEL = Pattern.compile("[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-f:.]+");

    public HostPattern {
        Objects.requireNonNull(text, "text");
        String why = problem(text).orElse("");
        if (!why.isEmpty() || !canonical(text).equals(text)) {
            throw new IllegalArgumentException("not a canonical host pattern: " + text + (why.isEmpty() ? "" : " (" + why + ")"));
        }
    }

    /** Parses what a declaration wrote; the message says what is wrong with it. */
    public static Result parse(String written) {
        Objects.requireNonNull(written, "written");
        String c = canonical(written);
        Optional<String> why = problem(c);
        return why.<Result>map(Result.Refused::new).orElseGet(() -> new Result.Parsed(new HostPattern(c)));
    }

    /** What {@link #parse} made of a written host. */
    public sealed interface Result {
        record Parsed(HostPattern pattern) implements Result {
        }

        record Refused(String why) implements Result {
        }
    }

    /** Whether this names many hosts ({@code *.suffix}) rather than one. */
    public boolean isWildcard() {
        return text.startsWith("*.");
    }

    /** Whether {@code host} (as a client named it) is this host, or below this domain. */
    public boolean matches(String host) {
        String h = canonical(host);
        if (isWildcard()) {
            String suffix = text.substring(1);
            return h.endsWith(suffix) && h.length() > suffix.length();
        }
        return h.equals(text);
    }

    /** Lower case, trimmed of one trailing dot; an unbracketed IPv6 literal is bracketed. */
    static String canonical(String host) {
        String h = host.strip().toLowerCase(Locale.ROOT);
        if (h.endsWith(".") && h.length() > 1) {
            h = h.substring(0, h.length() - 1);
        }
        if (h.indexOf(':') >= 0 && !h.startsWith("[") && IPV6.matcher(h).matches()) {
            h = "[" + h + "]";
        }
        return h;
    }

    private static Optional<String> problem(String h) {
        if (h.isEmpty()) {
            return Optional.of("a host must not be empty");
        }
        if (h.equals("*")) {
            return Optional.of("'*' alone would allow every host; name the hosts, or set the network mode to open");
        }
        if (h.startsWith("[")) {
            return h.endsWith("]") && h.length() > 2 && IPV6.matcher(h.substring(1, h.length() - 1)).matches()
                    && h.indexOf(':') > 0 ? Optional.empty() : Optional.of("not an IPv6 literal");
        }
        if (h.contains("://") || h.contains("/")) {
            return Optional.of("a host is a name, not a URL: write only the host (registry.npmjs.org)");
        }
        if (h.indexOf(':') >= 0) {
            return Optional.of("a host takes no port: the proxy lets a declared host through on any port");
        }
        String name = h;
        if (h.startsWith("*.")) {
            name = h.substring(2);
            if (name.indexOf('.') < 0) {
                return Optional.of("'" + h + "' would allow a whole top-level domain; name a domain below it");
            }
        }
        if (name.length() > 253) {
            return Optional.of("a host name has at most 253 characters");
        }
        for (String label : name.split("\\.", -1)) {
            if (label.contains("*")) {
                return Optional.of("'*' is allowed only as the whole first label ('*.example.org')");
            }
            if (!LABEL.matcher(label).matches()) {
                return Optional.of(label.isEmpty() ? "a host name has no empty label"
                        : "'" + label + "' is not a DNS label (letters, digits, '-', '_'; at most 63; no '-' at either end)");
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return text;
    }
}
